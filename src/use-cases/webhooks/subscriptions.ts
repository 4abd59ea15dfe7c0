import { deleteSubscription, findSubscription, insertSubscriptionBelowCap, listSubscriptions, rotateSubscriptionSecret } from '../../db/webhook-subscriptions';
import { recentDeliveries } from '../../db/webhook-deliveries';
import type { Prisma } from '../../db/prisma';
import { Conflict, Invalid, NotFound } from '../errors';
import type { Scope } from '../../db/scope';
import type { SecretBox } from '../../secrets/secret-box';
import { parseSubscriptionRequest } from './request';
import { newWebhookSecret } from './secret';
import { deliveryView, webhookView } from '../../views/webhook';

/** Per user (the token's subject) across all its businesses: the business segment is the caller's to choose. */
export const MAX_WEBHOOKS_PER_OWNER = 20;
export const MAX_DELIVERIES_PAGE = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const webhookNotFound = () => new NotFound('Webhook not found');

/** The caller's subscription, or the same 404 whether it is missing, another's, or not an id at all. */
export async function findOwnedWebhook(prisma: Prisma, scope: Scope, id: string) {
  const subscription = UUID.test(id) ? await findSubscription(prisma, scope, id) : null;
  if (!subscription) throw webhookNotFound();
  return subscription;
}

/** `GET /webhooks`: the caller's subscriptions in this business. */
export async function listWebhooks(prisma: Prisma, scope: Scope) {
  return { webhooks: (await listSubscriptions(prisma, scope)).map((s) => webhookView(s)) };
}

/** Creates a subscription; its secret is in this answer and no other (the row holds it sealed). */
export async function createWebhook(prisma: Prisma, secrets: SecretBox, scope: Scope, body: unknown, options: { allowPrivateUrls: boolean }) {
  const request = parseSubscriptionRequest(body, options);
  const secret = newWebhookSecret();
  const created = await insertSubscriptionBelowCap(prisma, secrets, scope, { ...request, secret }, MAX_WEBHOOKS_PER_OWNER);
  if (!created) throw new Conflict(`At most ${MAX_WEBHOOKS_PER_OWNER} webhooks per user, across its businesses: delete one first`);
  return { ...webhookView(created), secret };
}

export async function deleteWebhook(prisma: Prisma, scope: Scope, id: string): Promise<void> {
  if (!UUID.test(id) || !(await deleteSubscription(prisma, scope, id))) throw webhookNotFound();
}

/** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
export async function rotateWebhookSecret(prisma: Prisma, secrets: SecretBox, scope: Scope, id: string) {
  const secret = newWebhookSecret();
  const rotated = UUID.test(id) ? await rotateSubscriptionSecret(prisma, secrets, scope, id, secret) : null;
  if (!rotated) throw webhookNotFound();
  return { ...webhookView(rotated), secret };
}

export async function listWebhookDeliveries(prisma: Prisma, scope: Scope, id: string, limit: unknown) {
  const take = limit === undefined ? 50 : Number(limit);
  if (typeof limit === 'object' || !Number.isInteger(take) || take < 1 || take > MAX_DELIVERIES_PAGE) {
    throw new Invalid(`Invalid limit: must be a whole number from 1 to ${MAX_DELIVERIES_PAGE}`);
  }
  const subscription = await findOwnedWebhook(prisma, scope, id);
  return { deliveries: (await recentDeliveries(prisma, subscription.id, take)).map(deliveryView) };
}
