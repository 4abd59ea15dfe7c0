import { createHmac } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { ApplicationFailure } from '@temporalio/common';
import { fetch } from 'undici';
import { ActivityFailureType } from '../../domain';
import { discardCappedBody, readCappedBody, WEBHOOK_ANSWER_MAX_BYTES } from '../../net/capped-body';
import { isNonPublicAddressRefusal, outboundNetwork, type OutboundNetwork } from '../../net/outbound';
import { retryAfterMs } from '../../retry-after';
import { webhookBody, type MessageHandOff, type MessageProvider } from './types';

export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookOptions {
  url: string;
  secret?: string;
  timeoutMs?: number;
  /** What it connects through: the composition root's follows WEBHOOK_ALLOW_PRIVATE_URLS; unset, no guard (tests' receivers). */
  network?: OutboundNetwork;
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`: the timestamp lets a receiver refuse
 * replays of an old request; the body is signed byte for byte as sent.
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${digest}`;
}

/** Worth another attempt: the receiver timed out, is overloaded, or failed on its side. */
function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** A reference is an id, not prose: anything else a receiver answers is not kept. */
const PROVIDER_REF = /^[A-Za-z0-9._:\/-]{1,200}$/;

/**
 * The receiver's `id` from a 2xx JSON answer, when it looks like a reference. The answer is read to
 * WEBHOOK_ANSWER_MAX_BYTES: a longer one is cut off and the message is delivered without a reference.
 */
async function providerRefOf(response: Awaited<ReturnType<typeof fetch>>): Promise<string | undefined> {
  const answer = await readCappedBody(response, WEBHOOK_ANSWER_MAX_BYTES).catch(() => undefined);
  if (!answer?.complete) return undefined;
  const text = answer.bytes.toString('utf8');
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' && PROVIDER_REF.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * "Webhook answered 422 Unprocessable Entity": the status and its standard reason phrase, never the
 * receiver's body or reason text, which may echo the phone, name and text back into workflow history,
 * the worker's log and the message's `error`.
 */
function answerOf(status: number): string {
  return `Webhook answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
}

/**
 * POSTs the message as JSON with `Idempotency-Key: <message id>`. Network errors, timeouts, 408, 429
 * and 5xx are retried (after the receiver's `Retry-After` when it sends one); any other non-2xx answer
 * is a rejection.
 */
export function createWebhookProvider({ url, secret, timeoutMs = DEFAULT_WEBHOOK_TIMEOUT_MS, network = outboundNetwork({ publicOnly: false }) }: WebhookOptions): MessageProvider {
  return {
    name: 'webhook',
    async deliver(message: MessageHandOff) {
      const body = JSON.stringify(webhookBody(message));
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'Idempotency-Key': message.id,
        'User-Agent': 'crm-messaging-webhook/1',
      };
      if (secret) headers[SIGNATURE_HEADER] = webhookSignature(secret, Math.floor(Date.now() / 1000), body);

      let response: Awaited<ReturnType<typeof fetch>>;
      try {
        response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), dispatcher: network.dispatcher });
      } catch (error) {
        // Final: the address will not become public by asking again.
        if (isNonPublicAddressRefusal(error)) {
          throw ApplicationFailure.create({ type: ActivityFailureType.ProviderRejected, message: 'Webhook address is not public: private, loopback and link-local addresses are refused', nonRetryable: true });
        }
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeNetworkError(error);
        throw new Error(`Webhook unreachable: ${reason}`);
      }
      if (response.ok) return { providerRef: await providerRefOf(response) };
      // Read to the cap and dropped: a short answer leaves the connection reusable.
      await discardCappedBody(response, WEBHOOK_ANSWER_MAX_BYTES);
      const answer = answerOf(response.status);
      if (isTransientStatus(response.status)) {
        const delay = retryAfterMs(response.headers.get('retry-after'));
        // The receiver said when to come back: the next attempt waits that long instead of the backoff.
        if (delay !== undefined) throw ApplicationFailure.create({ type: 'WebhookRetryAfter', message: answer, nextRetryDelay: delay });
        throw new Error(answer);
      }
      throw ApplicationFailure.create({ type: ActivityFailureType.ProviderRejected, message: answer, nonRetryable: true });
    },
  };
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
