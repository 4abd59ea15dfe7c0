import type { SimulatedChannel } from './whatsapp';

/* The shapes of the simulated Twilio: its magic numbers, its message records, what it records and its options. */

/** Twilio's magic "To" numbers (test credentials) and the error each answers with. */
export const MAGIC_TO_ERRORS: Readonly<Record<string, { code: number; message: string }>> = {
  '+15005550001': { code: 21211, message: "The 'To' number is not a valid phone number." },
  '+15005550002': { code: 21612, message: "The 'To' phone number is not currently reachable via SMS." },
  '+15005550003': { code: 21408, message: 'Permission to send an SMS has not been enabled for the region indicated by the To number.' },
  '+15005550004': { code: 21610, message: 'Attempt to send to unsubscribed recipient' },
  '+15005550009': { code: 21614, message: "'To' number is not a valid mobile number" },
};

/**
 * Numbers of ours (not Twilio's) that are accepted and then come back `undelivered` with a carrier
 * error: +15005550033 to +15005550037 get errors 30003 to 30007.
 */
export const MAGIC_UNDELIVERED: Readonly<Record<string, number>> = {
  '+15005550033': 30003,
  '+15005550034': 30004,
  '+15005550035': 30005,
  '+15005550036': 30006,
  '+15005550037': 30007,
};

export interface TwilioApiMessage {
  sid: string;
  account_sid: string;
  api_version: string;
  body: string;
  date_created: string;
  date_updated: string;
  date_sent: string | null;
  direction: 'outbound-api' | 'inbound';
  error_code: number | null;
  error_message: string | null;
  /** As Twilio writes it: `whatsapp:+…` for WhatsApp. */
  from: string | null;
  messaging_service_sid: string | null;
  num_media: string;
  num_segments: string;
  price: string | null;
  price_unit: string;
  status: string;
  subresource_uris: { media: string };
  to: string;
  uri: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The form's fields (POST) or the query's (GET), the last value of a repeated one. */
  params: Record<string, string>;
  /** Every value of each field, in order (`MediaUrl` is repeated). */
  all: Record<string, string[]>;
  /** What this API answered. */
  status: number;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface TwilioApiOptions {
  accountSid: string;
  authToken: string;
  /** API keys (SID and secret) accepted besides the auth token. */
  apiKeys?: { sid: string; secret: string }[];
  /** The senders this account owns (SMS and WhatsApp alike); others are refused with 21606 (63007 on WhatsApp) or 21701 (MessagingServiceSid). */
  from?: string[];
  messagingServiceSids?: string[];
  /** Post `sent` then `delivered` (or `undelivered` for the magic numbers) to each StatusCallback after this many ms; undefined: only when told. */
  autoReceiptsAfterMs?: number;
  /** With automatic receipts, a WhatsApp message's `read` this long after its `delivered` (default: autoReceiptsAfterMs). */
  readReceiptsAfterMs?: number;
  /** How long a submitted content waits for WhatsApp's approval. */
  templateApprovalAfterMs?: number;
  /** How long a send's answer takes after the message was created (a slow network: a worker may die in between). */
  answerDelayMs?: number;
  /** What a delivered receipt says was charged, as Twilio writes it. */
  price?: { amount: string; unit: string };
  /** Told when an automatic callback could not be posted or was refused. */
  onCallbackError?: (error: unknown) => void;
  /**
   * The simulator's own doors (doors.ts): `POST /simulator/sms` posts a person's message, signed, to
   * `url` as sent to `to` (one of `from`'s numbers), else `number`.
   */
  inbound?: { url: string; number: string };
  /** Subaccounts (a business's own account) whose credentials open their own `/Accounts/{sid}/`; their callbacks are signed with their token. */
  subaccounts?: { accountSid: string; authToken: string }[];
  /** The simulator: any subaccount (`AC…` and a token) is taken on first use and kept, as an operator registers it. */
  anySubaccount?: boolean;
}

export interface InboundMessage {
  /** The person's number (E.164). */
  from: string;
  /** Ours. */
  to: string;
  body: string;
  messagingServiceSid?: string;
  channel?: SimulatedChannel;
  media?: { contentType: string; data: Buffer }[];
  /** RCS: the suggested reply tapped (ButtonText, ButtonPayload). */
  button?: { text: string; payload: string };
}
