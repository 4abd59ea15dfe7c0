import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { requestLineLevel } from '../../logger';
import { loggablePath } from '../../telemetry/http-route';
import { tagRequestId } from '../../telemetry/span-context';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';

/**
 * One line per finished request (at `debug` for a person at a terminal, see requestLineLevel) with its request id, method, path (never the query string, which may
 * carry anything, nor a Salesforce inbound URL's secret), status, time and user; the id is echoed in `X-Request-Id` and in problem bodies.
 */
export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    quietReqLogger: true,
    genReqId: (req, res) => {
      const id = requestIdOf(req);
      res.setHeader(REQUEST_ID_HEADER, id);
      tagRequestId(id);
      return id;
    },
    // pino-http asks at the start too, for the request's child logger; answering then as well would write every key twice.
    customProps: (req, res) => (res.headersSent ? { event: 'http.request', user: (req as { caller?: { userId: string } }).caller?.userId } : {}),
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : requestLineLevel()),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: loggablePath(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customSuccessMessage: (req, res) => `${req.method} ${loggablePath(req.url)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${loggablePath(req.url)} ${res.statusCode}`,
  }) as unknown as RequestHandler;
}
