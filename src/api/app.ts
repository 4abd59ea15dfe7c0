import express, { Router, type Express } from 'express';
import { agentsRouter, type AgentRoutesDeps } from './agents/routes';
import { DEFAULT_ASSIGN_TIMEOUT_MS } from './assignments/assign';
import { assignmentsRouter, type AssignmentRoutesDeps } from './assignments/routes';
import { clientsRouter, type ClientRoutesDeps } from './clients/routes';
import { accessLog, type AccessLogEntry } from './http/access-log';
import { authenticate, type AuthConfig } from './http/auth';
import { errorMiddleware, notFoundHandler } from './http/errors';
import { healthRouter, type HealthDeps } from './http/health';
import { BUSINESS_PATTERN } from './http/validation';
import { messagesRouter, type MessageRoutesDeps } from './messages/routes';

export type AppDeps = HealthDeps &
  ClientRoutesDeps &
  AgentRoutesDeps &
  Omit<AssignmentRoutesDeps, 'assignTimeoutMs'> &
  MessageRoutesDeps & {
    auth: AuthConfig;
    assignTimeoutMs?: number;
    log?: (error: unknown) => void;
    /** Called once per finished request, for an access log. */
    onRequest?: (entry: AccessLogEntry) => void;
  };

/** Builds the API without listening, so tests and the entry points drive the same app. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  if (deps.onRequest) app.use(accessLog(deps.onRequest));
  app.use(healthRouter(deps));

  const business = Router({ mergeParams: true });
  business.use((req, _res, next) => (BUSINESS_PATTERN.test(req.params.business as string) ? next() : next('router')));
  business.use(authenticate(deps.auth));
  // strict: false lets a JSON `null` or scalar body reach the route, which answers with its own 400 text.
  business.use(express.json({ limit: '100kb', type: () => true, strict: false }));
  business.use(clientsRouter(deps));
  business.use(agentsRouter(deps));
  business.use(assignmentsRouter({ ...deps, assignTimeoutMs: deps.assignTimeoutMs ?? DEFAULT_ASSIGN_TIMEOUT_MS }));
  business.use(messagesRouter(deps));
  app.use('/ext/v2/:business', business);

  app.use(notFoundHandler);
  app.use(errorMiddleware(deps.log ?? ((error) => console.error(error))));
  return app;
}
