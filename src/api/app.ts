import express, { Router, type Express } from 'express';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../db/prisma';
import { accessLog, type AccessLogEntry } from './access-log';
import { authenticate, type AuthConfig } from './auth';
import { errorMiddleware, notFoundHandler } from './errors';
import { agentsRouter } from './routes/agents';
import { assignmentsRouter } from './routes/assignments';
import { clientsRouter } from './routes/clients';
import { healthRouter } from './routes/health';
import { messagesRouter } from './routes/messages';
import { openApiRouter } from './openapi/routes';
import { BUSINESS_PATTERN } from './validation';

export interface AppDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  auth: AuthConfig;
  assignTimeoutMs?: number;
  log?: (error: unknown) => void;
  /** Called once per finished request, for an access log. */
  onRequest?: (entry: AccessLogEntry) => void;
}

/** Builds the API without listening, so tests and the entry point drive the same app. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  if (deps.onRequest) app.use(accessLog(deps.onRequest));
  app.use(healthRouter(deps));
  app.use(openApiRouter());

  const business = Router({ mergeParams: true });
  business.use((req, _res, next) => (BUSINESS_PATTERN.test(req.params.business as string) ? next() : next('router')));
  business.use(authenticate(deps.auth));
  // strict: false lets a JSON `null` or scalar body reach the route, which answers with its own 400 text.
  business.use(express.json({ limit: '100kb', type: () => true, strict: false }));
  business.use(clientsRouter(deps.prisma));
  business.use(agentsRouter(deps.prisma));
  business.use(assignmentsRouter({ ...deps, assignTimeoutMs: deps.assignTimeoutMs ?? 20_000 }));
  business.use(messagesRouter(deps));
  app.use('/ext/v2/:business', business);

  app.use(notFoundHandler);
  app.use(errorMiddleware(deps.log ?? ((error) => console.error(error))));
  return app;
}
