import { Webhook } from 'standardwebhooks';
import { createPrisma } from '../../src/db/prisma';
import type { ApiResponse, RequestOptions } from './http';
import { eventually } from './helpers';
import type { TestStack } from './stack';
import type { ReceivedRequest, WebhookReceiver } from './webhook-receiver';

type Api = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<ApiResponse<T>>;

/** `POST /webhooks` for the receiver; the answer's `_id` and secret. */
export async function subscribe(api: Api, token: string, receiver: WebhookReceiver, body: object = {}) {
  const res = await api('POST', '/webhooks', { token, body: { url: receiver.url, ...body } });
  expect(res.status).toBe(201);
  return res.body as { _id: string; secret: string; [field: string]: unknown };
}

/** The event a request carried, after the Standard Webhooks reference verifier accepted its signature under `secret`. */
export function verified(secret: string, request: ReceivedRequest): any {
  return new Webhook(secret).verify(request.rawBody, request.headers as Record<string, string>);
}

/** The requests that answered 2xx, i.e. what a receiver counts as delivered. */
export const delivered = (receiver: WebhookReceiver) => receiver.requests.filter((r) => r.status >= 200 && r.status < 300);

/** Waits until the receiver has taken `count` events (2xx), and returns their bodies in arrival order. */
export async function receivedEvents(receiver: WebhookReceiver, count: number, timeoutMs = 30_000): Promise<ReceivedRequest[]> {
  return eventually(async () => {
    const got = delivered(receiver);
    return got.length >= count ? got : undefined;
  }, timeoutMs);
}

/**
 * `POST /messages` through an API on its own database client, which hands no delivery over after its
 * commits: as if that API died right after each. Its event's deliveries stay pending until the sweep.
 */
export async function acceptWithoutHandOver(stack: TestStack, token: string, body: object): Promise<ApiResponse> {
  const prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
  const doomed = await stack.startApi({ prisma });
  try {
    const message = await doomed.api('POST', '/messages', { token, body });
    expect(message.status).toBe(202);
    return message;
  } finally {
    await doomed.stop();
    await prisma.$disconnect();
  }
}
