import { Transform } from 'node:stream';
import { causesOf } from './causes';

/*
 * Every answer the service reads from a host it does not run (webhook receivers, CRMs, carriers) is read
 * to a cap, the rest cancelled: a host that answers an endless body must not fill the worker's memory.
 * The caps are in docs/operations.md, "Outbound answers".
 */

/** What a webhook receiver's answer is read to: its status is all that counts. */
export const WEBHOOK_ANSWER_MAX_BYTES = 16 * 1024;
/** What a CRM's answer (HubSpot, Salesforce, Pipedrive) may weigh. */
export const CRM_ANSWER_MAX_BYTES = 4 * 1024 * 1024;
/** What a carrier's API answer (Twilio's REST and Content API, Telnyx) may weigh. */
export const CARRIER_ANSWER_MAX_BYTES = 1024 * 1024;
/** What an inbound media file streamed from a carrier may weigh: WhatsApp's largest document is 100 MB. */
export const MEDIA_MAX_BYTES = 100 * 1024 * 1024;

/** Why an answer was not read: over its cap. Its `code` travels inside the clients' own errors. */
export const RESPONSE_TOO_LARGE = 'ERESPONSETOOLARGE';
/** undici's own error for a dispatcher's `maxResponseSize`. */
const UNDICI_TOO_LARGE = 'UND_ERR_RES_EXCEEDED_MAX_SIZE';

export class ResponseTooLarge extends Error {
  readonly code = RESPONSE_TOO_LARGE;
  constructor(readonly maxBytes: number) {
    super(`The answer is larger than ${maxBytes} bytes`);
    this.name = 'ResponseTooLarge';
  }
}

/** A cap's refusal, however deep a client wrapped it (fetch's TypeError, axios's AxiosError, node-fetch's FetchError …). */
export function isResponseTooLarge(error: unknown): boolean {
  return causesOf(error).some((cause) => {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    // axios's own maxContentLength refusal carries no code of its own.
    return code === RESPONSE_TOO_LARGE || code === UNDICI_TOO_LARGE || (typeof message === 'string' && /^maxContentLength size of -?\d+ exceeded$/.test(message));
  });
}

/** "1 MiB", "16 KiB": a cap in the words of the docs. */
export function bytesInWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

type WebBody = { getReader(): ReadableStreamDefaultReader<Uint8Array> } | null;

/**
 * At most `maxBytes` of a fetch answer's body, the rest cancelled (the connection closed rather than
 * drained). `complete` is false when the body went past the cap: what was read is then a prefix.
 */
export async function readCappedBody(response: { body: WebBody }, maxBytes: number): Promise<{ bytes: Buffer; complete: boolean }> {
  if (!response.body) return { bytes: Buffer.alloc(0), complete: true };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), complete: true };
      size += value.byteLength;
      if (size > maxBytes) {
        chunks.push(value.subarray(0, value.byteLength - (size - maxBytes)));
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks), complete: false };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/** The body read to `maxBytes` and dropped, whatever happens to it (a reset, a timeout): only the status counts. */
export async function discardCappedBody(response: { body: WebBody }, maxBytes: number): Promise<void> {
  await readCappedBody(response, maxBytes).catch(() => undefined);
}

/** The body as text, or ResponseTooLarge past `maxBytes`: for answers the service needs whole. */
export async function cappedText(response: { body: WebBody }, maxBytes: number): Promise<string> {
  const { bytes, complete } = await readCappedBody(response, maxBytes);
  if (!complete) throw new ResponseTooLarge(maxBytes);
  return bytes.toString('utf8');
}

/** A stream passed through as it comes, failed with ResponseTooLarge once it has carried more than `maxBytes`. */
export function cappedStream(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(new ResponseTooLarge(maxBytes));
      callback(null, chunk);
    },
  });
}
