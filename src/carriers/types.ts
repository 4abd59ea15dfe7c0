/*
 * What the service needs from a carrier (Twilio, Telnyx, Vonage, the simulator), each implemented with
 * the carrier's official SDK in src/carriers/<name>/. Sending goes through `send`; the public callback
 * routes (`/providers/<name>/status[/<message id>]`, `/providers/<name>/inbound`) hand the raw request to
 * `verify` and then to `parseReceipt` / `parseInbound`. Nothing here sees Temporal or the database.
 */

import type { Channel, InboundMedia } from '../domain/channels';
import type { A2pRegistration } from '../domain/number-registration';
import type { DeliveredChannel, SuggestionTap } from '../domain/rcs';

export type { Channel, InboundMedia } from '../domain/channels';

export const CARRIER_NAMES = ['twilio', 'telnyx', 'vonage', 'simulator'] as const;
export type CarrierName = (typeof CARRIER_NAMES)[number];

export interface CarrierSend {
  /** Our message id: the carrier's client reference where it has one (Vonage `client_ref`). */
  id: string;
  /** E.164. */
  to: string;
  text: string;
  /** Where this message's receipts go: `<PUBLIC_BASE_URL>/providers/<name>/status/<id>`. */
  statusCallbackUrl: string;
  /** When the message left `scheduled`: a lookup after a crash searches from there. */
  dispatchedAt: Date;
  /** `sms` (with `media`: MMS) or `whatsapp`; `to` and the sender stay plain E.164, the carrier adds its own prefixes (Twilio's `whatsapp:`). */
  channel: Channel;
  /** Public https URLs of the pictures or files it carries (MMS, or WhatsApp's one media); empty for none. */
  media: string[];
  /** A WhatsApp template sent instead of free-form text (`text` is then its rendering, for our records only). */
  template?: TemplateSend;
  /** RCS's suggested replies, each with its postback data; absent or empty for none. */
  suggestions?: { text: string; postbackData: string }[];
}

/** A business's approved WhatsApp template as its carrier names it. */
export type TemplateRef =
  /** Twilio's Content API: the content's `HX…` sid. */
  | { contentSid: string }
  /** Vonage and Telnyx: the name and language WhatsApp approved it under. */
  | { name: string; language: string };

export interface TemplateSend {
  ref: TemplateRef;
  /** Its variables' values in the template's order: `name` as the template declares it (`1`, `first_name`). */
  variables: { name: string; value: string }[];
}

/** What the carrier says of a template's approval by WhatsApp. */
export type TemplateApproval = 'approved' | 'pending' | 'rejected' | 'unknown';

/** A media file fetched from the carrier, to be streamed through. */
export interface FetchedMedia {
  contentType: string | null;
  size: number | null;
  body: NodeJS.ReadableStream;
}

export interface CarrierAccepted {
  /** The carrier's message id (Twilio `SM…`, Telnyx id, Vonage `message_uuid`). */
  providerRef: string;
  segments?: number;
  price?: { amount: string; unit: string };
}

/** What a send answers: the carrier's acceptance, its reference missing when its answer was not read. */
export type CarrierHandedOver = Omit<CarrierAccepted, 'providerRef'> & { providerRef?: string };

/**
 * The carrier refused the message for good (invalid or non-mobile number, unsubscribed recipient,
 * content blocked): `code` is the carrier's documented code, `message` our own words, never the carrier's
 * body. `optOut` when the refusal means the recipient unsubscribed (Twilio 21610 and equivalents).
 */
export class CarrierRejected extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly optOut = false,
  ) {
    super(message);
    this.name = 'CarrierRejected';
  }
}

/** Throttled or unavailable (429, 5xx, queue full, network): worth another attempt, after `retryAfterMs` when the carrier said. */
export class CarrierUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'CarrierUnavailable';
  }
}

/** A carrier's HTTP request to one of our callback routes, as received. */
export interface CarrierCallback {
  /** The full URL the carrier called: PUBLIC_BASE_URL + the request's path and query. */
  url: string;
  headers: Readonly<Record<string, string | undefined>>;
  /** The body byte for byte, for signatures over it. */
  rawBody: Buffer;
  /** Our message id when the URL carries it (`/status/<id>`). */
  messageId?: string;
}

/** `read`: WhatsApp's read receipt (after `delivered`; never moves a status back). */
export type ReceiptStatus = 'sent' | 'delivered' | 'read' | 'undelivered' | 'failed';

export interface Receipt {
  providerRef: string;
  /** Our id, from the callback URL or the carrier's client reference. */
  messageId?: string;
  status: ReceiptStatus;
  errorCode?: string;
  /** The code says the recipient unsubscribed from our sender (a carrier that reports it only in receipts, like Vonage). */
  optOut?: boolean;
  price?: { amount: string; unit: string };
  /** When the carrier says the status happened. */
  at?: Date;
  /** Our number the message went out from, when the receipt names it. */
  sender?: string;
  /** An RCS message's receipt: the channel that carried it, RCS or the SMS/MMS the carrier fell back to. */
  deliveredChannel?: DeliveredChannel;
  /** The receipt is of the carrier's fallback copy, under a reference of its own (Vonage's failover): it still moves the RCS message. */
  fallback?: boolean;
}

export interface Inbound {
  providerRef: string;
  /** The client's number (E.164). */
  from: string;
  /** Our number it was sent to. */
  to: string;
  text: string;
  receivedAt: Date;
  /** `whatsapp` for a WhatsApp message (its addresses without the carrier's prefix), `rcs` for RCS (`to` is then our RCS agent), else `sms`. */
  channel: Channel;
  /** The files it carried (an MMS, a WhatsApp picture); empty for none. */
  media: InboundMedia[];
  /** RCS: the suggested reply the client tapped (its text is `text`). */
  suggestion?: SuggestionTap;
}

export interface Carrier {
  readonly name: CarrierName;
  /** What opt-outs are kept against: the number or messaging service this deployment sends from. */
  readonly sender: string;
  /**
   * Throws CarrierRejected or CarrierUnavailable; anything else thrown is treated as unavailable. No
   * `providerRef`: handed over, but the carrier's answer was too large to read (src/carriers/answer-cap.ts).
   */
  send(message: CarrierSend): Promise<CarrierHandedOver>;
  /** After an attempt that may have reached the carrier before a crash: the carrier's record of it, or null. */
  findSent(message: CarrierSend): Promise<CarrierAccepted | null>;
  /** The carrier's signature over the callback, checked with its SDK's helper. */
  verify(callback: CarrierCallback): Promise<boolean>;
  /** What one of the carrier's error codes means, in our words (a receipt's code); undefined for a code it does not document. */
  describeCode?(code: string): string | undefined;
  /** A status callback's receipt; null for a callback that carries none we track (e.g. `queued`). */
  parseReceipt(callback: CarrierCallback): Receipt | null;
  /** An inbound-message callback's text; null for any other kind of callback. */
  parseInbound(callback: CarrierCallback): Inbound | null;
  /**
   * Our number a callback is about (a receipt's sender, an inbound text's recipient), read before its
   * signature is checked, to know whose account signed it; undefined: the deployment's account.
   */
  numberOf?(callback: CarrierCallback, kind: 'receipt' | 'inbound'): string | undefined;
  /** Sends an automatic answer (HELP, opt-out confirmations) that is no business's message, on the channel the client wrote on (RCS: by SMS, which every handset takes). */
  reply(to: string, text: string, channel?: Channel): Promise<void>;
  /** WhatsApp's approval of a template, where the carrier's API tells it (Twilio's Content API); absent: the business's word is taken. */
  templateApproval?(ref: TemplateRef): Promise<TemplateApproval>;
  /**
   * An inbound message's file, fetched with this account's credentials. Only from the carrier's own
   * media hosts (the URL came from a verified callback, but is still checked); throws CarrierRejected
   * for a file the carrier no longer has, CarrierUnavailable when it cannot be reached.
   */
  fetchMedia?(url: string): Promise<FetchedMedia>;
  /**
   * The number's A2P registration as this account's carrier API says it (10DLC brand and campaign, the
   * number's place in it, or its toll-free verification); absent: none can be read (Vonage without key:secret). Throws
   * CarrierUnavailable when the carrier cannot be asked.
   */
  readRegistration?(number: string): Promise<A2pRegistration>;
  /** Whether one of its error codes says the sender's registration forbids the text (Twilio 30034 and the like). */
  isRegistrationCode?(code: string): boolean;
}
