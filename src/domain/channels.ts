/*
 * The channels a message goes by (docs/messages.md, "Channels"). SMS with media is MMS: the channel
 * stays `sms`, the media make it an MMS. A number carries the channels its registration names.
 */

export const CHANNELS = ['sms', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A message row's `channel` column (text, default `sms`) read back as a Channel: the one reading of it. */
export const storedChannel = (column: string): Channel => (column === 'whatsapp' ? 'whatsapp' : 'sms');

/** What a business number can carry: `mms` is SMS with media. */
export const NUMBER_CHANNELS = ['sms', 'mms', 'whatsapp'] as const;
export type NumberChannel = (typeof NUMBER_CHANNELS)[number];

/** The numbers registered before channels existed, and the shared sender, carry SMS and MMS. */
export const DEFAULT_NUMBER_CHANNELS: readonly NumberChannel[] = ['sms', 'mms'];

/** What a message needs its sender to carry. */
export const numberChannelOf = (channel: Channel, mediaCount: number): NumberChannel => (channel === 'whatsapp' ? 'whatsapp' : mediaCount > 0 ? 'mms' : 'sms');

/** The channel an opt-out of a message's channel is kept under (MMS is SMS with media). */
export const optOutChannelOf = (channel: string): Channel => (channel === 'whatsapp' ? 'whatsapp' : 'sms');

/** WhatsApp's customer-service window: a free-form message may go this long after the client's last WhatsApp message to the sender. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

export const OUTSIDE_WHATSAPP_WINDOW = "Outside WhatsApp's 24-hour window: send an approved template";

/** Whether a free-form WhatsApp message may go at `at`, the client's last inbound WhatsApp message to the sender having come at `lastInboundAt`. */
export const insideWhatsAppWindow = (lastInboundAt: Date | null, at: Date): boolean =>
  lastInboundAt !== null && at.getTime() - lastInboundAt.getTime() < WHATSAPP_WINDOW_MS;

/** How many media one message may carry: MMS up to 10 (Twilio's and Telnyx's limit), WhatsApp one (WhatsApp's). */
export const MAX_MEDIA: Readonly<Record<Channel, number>> = { sms: 10, whatsapp: 1 };

/** A file an inbound message carried, as the carrier keeps it. */
export interface InboundMedia {
  /** The carrier's URL of the file (fetched with the account's credentials: `Carrier.fetchMedia`). */
  url: string;
  contentType: string | null;
  size: number | null;
}
