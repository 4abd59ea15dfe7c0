import { Router } from 'express';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../config/index';
import type { DatabaseDeps } from '../../use-cases/database';
import type { SecretBox } from '../../secrets/secret-box';
import { scopeOf } from '../http/scope';
import { createWebhook, deleteWebhook, findOwnedWebhook, listWebhookDeliveries, listWebhooks, rotateWebhookSecret } from '../../use-cases/webhooks/subscriptions';
import { webhookView } from '../../views/webhook';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export interface WebhookRoutesDeps extends DatabaseDeps {
  /** Seals the subscriptions' secrets (SECRETS_KEY). */
  secrets: SecretBox;
  /** The WEBHOOK_* settings: whether receivers may be private addresses. */
  webhooks?: Pick<WebhookSettings, 'allowPrivateUrls'>;
}

export function webhooksRouter({ prisma, secrets, webhooks = DEFAULT_WEBHOOK_SETTINGS }: WebhookRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/webhooks', async (req, res) => {
    const scope = scopeOf(req);
    const created = await createWebhook(prisma, secrets, scope, req.body, webhooks);
    res.status(201).location(`/ext/v2/${scope.business}/webhooks/${created._id}`).json(created);
  });

  router.get('/webhooks', async (req, res) => {
    res.json(await listWebhooks(prisma, scopeOf(req)));
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    res.json(webhookView(await findOwnedWebhook(prisma, scopeOf(req), req.params.webhookId)));
  });

  router.delete('/webhooks/:webhookId', async (req, res) => {
    refuseAnyField(req.body);
    await deleteWebhook(prisma, scopeOf(req), req.params.webhookId);
    res.status(204).end();
  });

  router.post('/webhooks/:webhookId/rotate-secret', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await rotateWebhookSecret(prisma, secrets, scopeOf(req), req.params.webhookId));
  });

  router.get('/webhooks/:webhookId/deliveries', async (req, res) => {
    res.json(await listWebhookDeliveries(prisma, scopeOf(req), req.params.webhookId, req.query.limit));
  });

  return router;
}
