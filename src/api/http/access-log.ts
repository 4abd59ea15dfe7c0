import type { RequestHandler } from 'express';

export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  user?: string;
}

/** One entry per finished request; the query string is left out, since it may carry anything. */
export function accessLog(write: (entry: AccessLogEntry) => void): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      write({
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        user: req.caller?.userId,
      });
    });
    next();
  };
}
