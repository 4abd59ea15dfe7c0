import type { SendContent } from '../../use-cases/messages/content-at-send';

/**
 * What a provider is handed: the contract's webhook body. A message on another channel than SMS, with
 * media or a WhatsApp template adds `channel`, `media` and `template` (absent: a plain SMS, as before).
 */
export interface OutgoingMessage {
  id: string;
  business: string;
  client: string | null;
  to: string;
  name: string | null;
  text: string;
  sent_at: string;
  channel?: SendContent['channel'];
  media?: string[];
  template?: SendContent['template'];
}

/** The body's channel fields: only those that say more than "a plain SMS". */
export const contentFields = (content: SendContent): Pick<OutgoingMessage, 'channel' | 'media' | 'template'> => ({
  ...(content.channel !== 'sms' && { channel: content.channel }),
  ...(content.media.length > 0 && { media: content.media }),
  ...(content.template && { template: content.template }),
});

export interface MessageProvider {
  readonly name: string;
  /** Delivers once per message id: a repeated call with the same id must not deliver twice. */
  /** `sender`: the number (or messaging service) the message goes out from, as stored with it; null: the deployment's. */
  deliver(message: OutgoingMessage, sender?: string | null): Promise<{ providerRef?: string }>;
  /**
   * Asked before an attempt that follows one which may have reached the provider (a worker killed, an
   * answer lost): the provider's record of this message when it has one, so it is not sent twice.
   * Providers that honour the message id as an idempotency key need none.
   */
  findSent?(message: OutgoingMessage, sender?: string | null): Promise<{ providerRef: string } | null>;
}
