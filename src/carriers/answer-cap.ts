import { logger } from '../logger';
import { bytesInWords, CARRIER_ANSWER_MAX_BYTES, readCappedBody } from '../net/capped-body';
import { causesOf } from '../net/causes';
import { type CarrierAccepted, CarrierRejected, CarrierUnavailable } from './types';

/*
 * A carrier's API answer (a send, a lookup, Twilio's Content API) is read to CARRIER_ANSWER_MAX_BYTES,
 * the rest cancelled: their real answers weigh a few KB. Over the cap, a send may still have
 * gone through, so it is never sent again nor marked failed on a guess: a 2xx is a message handed over
 * without a carrier reference (its receipts still find it by the id in their URL or client reference),
 * another status the failure that status says. Any other call fails for good (docs/operations.md,
 * "Outbound answers").
 */

/** The carrier's answer, with this status, went past the cap and was not read. */
export class CarrierAnswerTooLarge extends Error {
  constructor(
    readonly carrier: string,
    readonly status: number,
  ) {
    super(`${carrier}'s answer (HTTP ${status}) was larger than ${bytesInWords(CARRIER_ANSWER_MAX_BYTES)} and was not read`);
    this.name = 'CarrierAnswerTooLarge';
  }
}

/** The cap's refusal, however deep an SDK wrapped it (Telnyx's APIConnectionError keeps it as its cause). */
export function answerTooLargeIn(error: unknown): CarrierAnswerTooLarge | undefined {
  return causesOf(error).find((cause): cause is CarrierAnswerTooLarge => cause instanceof CarrierAnswerTooLarge);
}

/** A fetch answer read to the cap, as a new answer holding the bytes; CarrierAnswerTooLarge past it (the connection closed). */
export async function cappedAnswer(carrier: string, response: Response): Promise<Response> {
  const { bytes, complete } = await readCappedBody(response, CARRIER_ANSWER_MAX_BYTES);
  if (!complete) throw new CarrierAnswerTooLarge(carrier, response.status);
  const { status, statusText, headers } = response;
  // A 204's or 304's answer may carry no body at all.
  return new Response(bytes.length > 0 ? bytes : null, { status, statusText, headers });
}

/** A fetch that reads each answer to the cap (for an SDK that takes its own fetch). */
export function cappedFetch(carrier: string): typeof fetch {
  return async (input, init) => cappedAnswer(carrier, await fetch(input, init));
}

/**
 * A send whose answer was over the cap: a 2xx is handed over without a reference (logged, never
 * resent), another status the failure `byStatus` says.
 */
export function sendAnswerTooLarge(tooLarge: CarrierAnswerTooLarge, byStatus: (status: number) => CarrierRejected | CarrierUnavailable): Omit<CarrierAccepted, 'providerRef'> {
  const { carrier, status } = tooLarge;
  if (status < 200 || status >= 300) throw byStatus(status);
  logger.warn({ event: 'carrier.answer_too_large', carrier, status, max_bytes: CARRIER_ANSWER_MAX_BYTES }, `${carrier} accepted the message with an answer larger than ${bytesInWords(CARRIER_ANSWER_MAX_BYTES)}: handed over without a carrier reference`);
  return {};
}

/** Any other call whose answer was over the cap: final, in our words. */
export function answerTooLargeRefusal(carrier: string, action: string): CarrierRejected {
  return new CarrierRejected('answer-too-large', `${carrier}'s answer to ${action} was larger than ${bytesInWords(CARRIER_ANSWER_MAX_BYTES)} and was not read`);
}

/** A status alone (the answer's body unread) as the failure it says: 408, 429 and 5xx may pass, other statuses not. */
export function failureOfStatusOnly(carrier: string, status: number): CarrierRejected | CarrierUnavailable {
  if (status === 408 || status === 429 || status >= 500) return new CarrierUnavailable(`${carrier} is throttling or unavailable (HTTP ${status})`);
  return new CarrierRejected(`http_${status}`, `${carrier} refused the message (HTTP ${status})`);
}
