/*
 * The channels a message goes by (docs/messages.md, "Channels"). SMS with media is MMS: the channel
 * stays `sms`, the media make it an MMS. A number carries the channels its registration names. RCS goes
 * with the carrier's own fallback to SMS/MMS from the same number: the pair shares one opt-out (`sms`).
 */

export const CHANNELS = ['sms', 'whatsapp', 'rcs'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A message row's `channel` column (text, default `sms`) read back as a Channel: the one reading of it. */
export const storedChannel = (column: string): Channel => (column === 'whatsapp' || column === 'rcs' ? column : 'sms');

/** What a business number can carry: `mms` is SMS with media; `rcs` an RCS agent (`rcs_agent`) that falls back to the number's SMS/MMS. */
export const NUMBER_CHANNELS = ['sms', 'mms', 'whatsapp', 'rcs'] as const;
export type NumberChannel = (typeof NUMBER_CHANNELS)[number];

/** The numbers registered before channels existed, and the shared sender, carry SMS and MMS. */
export const DEFAULT_NUMBER_CHANNELS: readonly NumberChannel[] = ['sms', 'mms'];

/** What the shared sender may carry: never RCS, whose agent is a business's (a number's `rcs_agent`). */
export const SHARED_SENDER_CHANNEL_CHOICES = ['sms', 'mms', 'whatsapp'] as const;

/** What a message needs its sender to carry. */
export const numberChannelOf = (channel: Channel, mediaCount: number): NumberChannel => (channel === 'sms' ? (mediaCount > 0 ? 'mms' : 'sms') : channel);

/**
 * The channel an opt-out of a message's channel is kept under (MMS is SMS with media). RCS is kept under
 * `sms`: the client may have seen either of the fallback pair, so a STOP on either stops both.
 */
export const optOutChannelOf = (channel: string): Channel => (channel === 'whatsapp' ? 'whatsapp' : 'sms');

/** WhatsApp's customer-service window: a free-form message may go this long after the client's last WhatsApp message to the sender. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

export const OUTSIDE_WHATSAPP_WINDOW = "Outside WhatsApp's 24-hour window: send an approved template";

/** Whether a free-form WhatsApp message may go at `at`, the client's last inbound WhatsApp message to the sender having come at `lastInboundAt`. */
export const insideWhatsAppWindow = (lastInboundAt: Date | null, at: Date): boolean =>
  lastInboundAt !== null && at.getTime() - lastInboundAt.getTime() < WHATSAPP_WINDOW_MS;

/** How many media one message may carry: MMS up to 10 (Twilio's and Telnyx's limit), WhatsApp one (WhatsApp's), RCS one (a file message or a card's one medium). */
export const MAX_MEDIA: Readonly<Record<Channel, number>> = { sms: 10, whatsapp: 1, rcs: 1 };

/** A file an inbound message carried, as the carrier keeps it. */
export interface InboundMedia {
  /** The carrier's URL of the file (fetched with the account's credentials: `Carrier.fetchMedia`). */
  url: string;
  contentType: string | null;
  size: number | null;
}
