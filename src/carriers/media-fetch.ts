import { pipeline, Readable } from 'node:stream';
import { cappedStream, MEDIA_MAX_BYTES } from '../net/capped-body';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { retryAfterMs } from '../retry-after';
import { CarrierRejected, CarrierUnavailable, type FetchedMedia } from './types';

/*
 * An inbound message's file fetched from its carrier and streamed through (Carrier.fetchMedia). The URL
 * came in a verified callback but is checked again: only the carrier's own media hosts are fetched (the
 * account's credentials go nowhere else). The URL is never put in an error: it may name the message.
 */

export interface MediaSource {
  /** The carrier in our words ("Vonage"). */
  carrier: string;
  /** Whether the URL is on one of the carrier's media hosts (or the test base). */
  allowed(url: URL): boolean;
  /** The account's credentials for the request, when the carrier's media need them. */
  headers?(): Promise<Record<string, string>>;
  /** How long to wait for the answer's headers (the body then streams at the reader's pace). */
  timeoutMs?: number;
  /** The largest file streamed through (MEDIA_MAX_BYTES): a larger one is refused, or cut off where it passes the cap. */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}(\s*;.{0,100})?$/i;

function urlOf(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** The file, streamed; CarrierRejected for a URL not the carrier's or a file it no longer has, CarrierUnavailable when it cannot be reached. */
export async function fetchCarrierMedia(raw: string, source: MediaSource): Promise<FetchedMedia> {
  const { carrier } = source;
  const url = urlOf(raw);
  if (!url || !source.allowed(url)) throw new CarrierRejected('media-foreign-host', `The file is not on ${carrier}'s media servers`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), source.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { headers: (await source.headers?.()) ?? {}, signal: controller.signal, redirect: 'follow' });
  } catch {
    throw new CarrierUnavailable(controller.signal.aborted ? `${carrier} did not answer in time for the file` : `${carrier}'s media servers could not be reached`);
  } finally {
    clearTimeout(timer);
  }
  const { status } = response;
  if (status < 200 || status > 299) {
    await response.body?.cancel().catch(() => undefined);
    if (status === 404 || status === 410) throw new CarrierRejected('media-not-found', `${carrier} no longer has this file`);
    if (status === 401 || status === 408 || status === 429 || status >= 500) {
      throw new CarrierUnavailable(`${carrier} did not serve the file (HTTP ${status})`, retryAfterMs(response.headers.get('retry-after')));
    }
    throw new CarrierRejected(`media-http-${status}`, `${carrier} refused the file (HTTP ${status})`);
  }
  const type = response.headers.get('content-type')?.trim();
  const length = response.headers.get('content-length')?.trim();
  const size = length && /^\d{1,15}$/.test(length) ? Number(length) : null;
  const maxBytes = source.maxBytes ?? MEDIA_MAX_BYTES;
  if (size !== null && size > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new CarrierRejected('media-too-large', `${carrier}'s file is larger than this service streams`);
  }
  return { contentType: type && CONTENT_TYPE.test(type) ? type : null, size, body: cappedBody(response.body, maxBytes) };
}

/** The body streamed through, failed (and the carrier's connection closed) once it passes `maxBytes`. */
export function cappedBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): NodeJS.ReadableStream {
  if (!body) return Readable.from([]);
  return pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), cappedStream(maxBytes), () => undefined);
}

/** The origin of a configured API base, to let its own media URLs through (a test double, a regional edge). */
export function originOf(base: string | undefined): string | undefined {
  return base ? urlOf(base)?.origin : undefined;
}
