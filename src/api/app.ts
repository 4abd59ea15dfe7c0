import express, { Router, type Express } from 'express';
import type { Logger } from 'pino';
import { logger as defaultLogger } from '../logger';
import { agentsRouter, type AgentRoutesDeps } from './agents/routes';
import { DEFAULT_ASSIGN_TIMEOUT_MS } from '../use-cases/assignments/assign';
import { assignmentsRouter, type AssignmentRoutesDeps } from './assignments/routes';
import { clientsRouter, type ClientRoutesDeps } from './clients/routes';
import { eventsRouter, type EventRoutesDeps } from './events/routes';
import { authenticate, type AuthConfig } from './http/authenticate';
import { errorMiddleware, notFoundHandler } from './http/errors';
import { healthRouter, type HealthDeps } from './http/health';
import { jsonBodyOnly } from './http/json-body';
import { BODY_LIMIT, jsonReader } from './http/json-reader';
import { jsonEndsWithNewline } from './http/json-text';
import { corsAllowList, securityHeaders } from './http/hygiene';
import { httpMetrics, type HttpMetrics } from './http/metrics';
import { perUserRateLimit } from './http/rate-limit';
import { DoorBudget, publicDoor, type DoorLimits } from './http/public-doors';
import { requestLog } from './http/request-log';
import { singleValuedHeaders, storableBody } from './http/request-guards';
import { BUSINESS_CHARACTERS, BUSINESS_PATTERN, INVALID_BUSINESS } from '../use-cases/input/validation';
import { badRequest } from './http/problem';
import { messagesRouter, type MessageRoutesDeps } from './messages/routes';
import { BATCH_BODY_LIMIT, messageBatchesRouter } from './messages/batch-routes';
import { openApiRouter } from './openapi/routes';
import { optOutsRouter } from './opt-outs/routes';
import { conversationsRouter } from './conversations/routes';
import { unmatchedInboundRouter } from './unmatched-inbound/routes';
import { providersRouter, type ProviderRoutesDeps } from './carriers/routes';
import { webhooksRouter, type WebhookRoutesDeps } from './webhooks/routes';
import { numbersRouter, type NumberRoutesDeps } from './admin/numbers-routes';
import { operatorMessagesRouter } from './admin/messages-routes';
import { operatorAuthentication, type OperatorCredentials } from './http/operator-auth';
import { rotationRouter, type RotationRoutesDeps } from './rotation/routes';
import { routingRouter, type RoutingRoutesDeps } from './routing/routes';
import { templatesRouter, type TemplateRoutesDeps } from './templates/routes';
import { integrationsRouter, type IntegrationRoutesDeps } from './integrations/routes';
import { crmInboundRouter, type InboundRoutesDeps } from './integrations/inbound-routes';
import { InboundKeyCache } from '../use-cases/integrations/inbound-keys';

export interface HttpOptions {
  /** Where request lines and errors go; the process's logger by default. */
  logger?: Logger;
  corsOrigins?: readonly string[];
  /** Requests per user and minute; 0 or absent: no limit. */
  rateLimitPerMinute?: number;
  trustProxy?: boolean | number | string;
  /** The unauthenticated doors' budgets per source address and in total (PUBLIC_DOOR_*); absent: none. */
  publicDoorLimits?: DoorLimits;
  /** Where the request counts go; the caller serves its registry on the metrics port (serveMetrics). */
  metrics?: HttpMetrics;
}

export type AppDeps = HealthDeps &
  ClientRoutesDeps &
  AgentRoutesDeps &
  Omit<AssignmentRoutesDeps, 'assignTimeoutMs'> &
  MessageRoutesDeps &
  WebhookRoutesDeps &
  EventRoutesDeps &
  ProviderRoutesDeps &
  IntegrationRoutesDeps &
  Pick<InboundRoutesDeps, 'admission' | 'crmInboundRateLimitPerMinute'> &
  Omit<NumberRoutesDeps, 'carrier'> &
  Pick<RotationRoutesDeps, 'rotationMinPeriodMs' | 'rotationApplyWaitMs'> &
  Pick<RoutingRoutesDeps, 'routingMinFirstResponseMs'> &
  TemplateRoutesDeps &
  HttpOptions & {
    auth: AuthConfig;
    assignTimeoutMs?: number;
    /** The operator API's credential (ADMIN_TOKEN, ADMIN_JWT_AUDIENCE); without one, /admin is not served. */
    adminCredentials?: OperatorCredentials;
    /** Where npm start keeps the development operator token it generated (never in production): a refused /admin call names it. */
    adminTokenFile?: string;
  };

/** Builds the API without listening, so tests and the entry points drive the same app. */
export function createApp(deps: AppDeps): Express {
  const logger = deps.logger ?? defaultLogger;
  const log = deps.log ?? ((error: unknown) => logger.error({ event: 'error', err: error }));
  const metrics = deps.metrics ?? httpMetrics();
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  app.use(jsonEndsWithNewline, requestLog(logger), metrics.middleware, ...securityHeaders(), corsAllowList(deps.corsOrigins ?? []));
  // Each group of unauthenticated doors has budgets of its own: a flood at one leaves the others' alone.
  const doorBudget = () => (deps.publicDoorLimits ? publicDoor(new DoorBudget(deps.publicDoorLimits)) : undefined);
  app.use(healthRouter(deps, doorBudget()), openApiRouter());
  // The carriers' callbacks: public, signed by the carrier instead of a user's token.
  app.use(providersRouter({ ...deps, registry: metrics.registry, logger, doorBudget: doorBudget() }));
  // The CRMs' inbound events: public, proven by the CRM's signature or credentials, checked with keys kept in memory.
  const inboundKeys = deps.inboundKeys ?? new InboundKeyCache();
  app.use(crmInboundRouter({ ...deps, inboundKeys, logger, doorBudget: doorBudget() }));

  const business = Router({ mergeParams: true });
  // Before the token, alike for everyone: outside the contract's characters no business route matches (404);
  // within them, a name shaped like a path step (`.`, `..`, a leading dot or dash) is a 400 that says the rule.
  business.use((req, _res, next) => {
    const name = req.params.business as string;
    if (!BUSINESS_CHARACTERS.test(name)) return next('router');
    return BUSINESS_PATTERN.test(name) ? next() : next(badRequest(INVALID_BUSINESS));
  });
  business.use(singleValuedHeaders, authenticate(deps.auth));
  business.use(perUserRateLimit(deps.rateLimitPerMinute ?? 0));
  // A campaign carries up to 1,000 recipients: its route reads up to 5 MB, every other one 100 kB.
  business.use('/messages/batch', jsonBodyOnly, jsonReader(BATCH_BODY_LIMIT));
  business.use(jsonBodyOnly, jsonReader(BODY_LIMIT), storableBody);
  business.use(clientsRouter({ ...deps, log }));
  business.use(agentsRouter({ ...deps, log }));
  business.use(assignmentsRouter({ ...deps, log, assignTimeoutMs: deps.assignTimeoutMs ?? DEFAULT_ASSIGN_TIMEOUT_MS }));
  business.use(messageBatchesRouter({ ...deps, log }));
  business.use(messagesRouter({ ...deps, log }));
  business.use(optOutsRouter(deps));
  business.use(conversationsRouter({ ...deps, log }));
  business.use(unmatchedInboundRouter(deps));
  business.use(webhooksRouter(deps));
  business.use(eventsRouter(deps));
  business.use(rotationRouter({ ...deps, log }));
  business.use(routingRouter({ ...deps, log }));
  business.use(templatesRouter(deps));
  business.use(integrationsRouter({ ...deps, inboundKeys }));
  app.use('/ext/v2/:business', business);

  // The operator API: outside the business routes, its own credential; every /admin route sits behind it.
  if (deps.adminCredentials) {
    const admin = Router();
    const hint = deps.adminTokenFile && `npm start keeps its development operator token in ${deps.adminTokenFile}: Authorization: Bearer $(cat ${deps.adminTokenFile})`;
    admin.use(singleValuedHeaders, operatorAuthentication(deps.adminCredentials, logger, hint));
    admin.use(jsonBodyOnly, jsonReader(BODY_LIMIT), storableBody);
    admin.use(numbersRouter(deps));
    admin.use(operatorMessagesRouter(deps));
    app.use('/admin', admin);
  }

  app.use(notFoundHandler);
  app.use(errorMiddleware(log));
  return app;
}
