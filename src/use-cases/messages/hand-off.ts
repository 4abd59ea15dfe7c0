import type { SendContent } from './content-at-send';

/**
 * What the send activities hand a provider (a carrier, the `webhook` or the `log` provider): one message,
 * its channel a Channel from the row to the carrier. Each provider makes its own wire shape of it (the
 * webhook body, a carrier's request); none is this.
 */
export interface MessageHandOff extends SendContent {
  id: string;
  business: string;
  client: string | null;
  to: string;
  name: string | null;
  text: string;
  /** When the message left `scheduled`, fixed before its first attempt. */
  dispatchedAt: Date;
}

/** The message as stored (`content`: storedContent's), for a lookup at the provider or a first hand-over. */
export function handOffOf(message: Omit<MessageHandOff, keyof SendContent>, content: SendContent): MessageHandOff {
  return { ...message, ...content };
}

/**
 * The hand-off with the content decided when due (contentAtSend): its channel and template, and its media
 * unless it has none, when the stored ones go.
 */
export function withContentAtSend(stored: MessageHandOff, content: SendContent): MessageHandOff {
  return {
    ...stored,
    channel: content.channel,
    media: content.media.length > 0 ? content.media : stored.media,
    ...(content.template && { template: content.template }),
    ...(content.suggestions && { suggestions: content.suggestions }),
  };
}
