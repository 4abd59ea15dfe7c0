import { STATUS_CODES } from 'node:http';
import { fetch } from 'undici';
import { discardCappedBody, WEBHOOK_ANSWER_MAX_BYTES } from '../../net/capped-body';
import { isNonPublicAddressRefusal, type OutboundNetwork } from '../../net/outbound';
import { resolvesToPublicAddresses } from '../../net/public-address';
import { retryAfterMs } from '../../retry-after';

/** What one POST to a receiver came to; `error` is our own words, never the receiver's body. */
export type WebhookAnswer =
  | { kind: 'delivered'; statusCode: number }
  /** Worth another attempt: network error, timeout, 408, 429, 5xx; `retryAfterMs` when the receiver said. */
  | { kind: 'transient'; statusCode: number | null; error: string; retryAfterMs?: number }
  /** Final for this event: any other answer; `gone` for 410, which also disables the subscription. */
  | { kind: 'refused'; statusCode: number | null; error: string; gone: boolean };

const answerText = (status: number) => `Receiver answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;

/** A receiver's Retry-After is followed up to an hour: the backoff's own longest wait. */
export const MAX_WEBHOOK_RETRY_AFTER_MS = 60 * 60 * 1000;

const NOT_PUBLIC = 'Receiver address is not public: private, loopback and link-local addresses are refused';

/**
 * POSTs `body` as JSON with `headers`, without following redirects, and classifies the answer. Through
 * `network`: with its guard on, an address that is not public is refused when the name is looked up
 * first (a clear answer early) and again when the socket is opened (whatever the name resolves to then).
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs: number, { network }: { network: OutboundNetwork }): Promise<WebhookAnswer> {
  if (network.publicOnly) {
    /*
     * A failed lookup proves nothing about the address: it is retried like any other transient failure
     * rather than left to the connect-time lookup, so that the delivery says why.
     */
    let isPublic: boolean;
    try {
      isPublic = await resolvesToPublicAddresses(new URL(url), network.lookup);
    } catch (error) {
      return { kind: 'transient', statusCode: null, error: `Receiver address could not be resolved: ${errorCode(error) ?? 'DNS error'}` };
    }
    if (!isPublic) return { kind: 'refused', statusCode: null, error: NOT_PUBLIC, gone: false };
  }
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'crm-messaging-events/1', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      dispatcher: network.dispatcher,
    });
  } catch (error) {
    if (isNonPublicAddressRefusal(error)) return { kind: 'refused', statusCode: null, error: NOT_PUBLIC, gone: false };
    const reason = (error as Error).name === 'TimeoutError' ? `No answer within ${timeoutMs} ms` : `Receiver unreachable: ${networkErrorCode(error)}`;
    return { kind: 'transient', statusCode: null, error: reason };
  }
  // The status is all that counts: a short body is read (the connection can be reused), a longer one cut off.
  await discardCappedBody(response, WEBHOOK_ANSWER_MAX_BYTES);
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: 'delivered', statusCode: status };
  if (status === 408 || status === 429 || status >= 500) {
    const after = retryAfterMs(response.headers.get('retry-after'), Date.now(), MAX_WEBHOOK_RETRY_AFTER_MS);
    return { kind: 'transient', statusCode: status, error: answerText(status), ...(after !== undefined && { retryAfterMs: after }) };
  }
  const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  return { kind: 'refused', statusCode: status, error: `${answerText(status)}${redirect}`, gone: status === 410 };
}

/** The system's code (ECONNREFUSED, ENOTFOUND…), never a message that may name the host. */
function networkErrorCode(error: unknown): string {
  return errorCode((error as { cause?: unknown }).cause) ?? 'network error';
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
