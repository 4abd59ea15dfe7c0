import type { MessageHandOff } from '../../use-cases/messages/hand-off';

export type { MessageHandOff } from '../../use-cases/messages/hand-off';

/**
 * The contract's webhook body (MESSAGE_PROVIDER=webhook). A message on another channel than SMS, with
 * media, a WhatsApp template or RCS's suggested replies adds `channel`, `media`, `template` and
 * `suggestions` (absent: a plain SMS).
 */
export interface OutgoingMessage {
  id: string;
  business: string;
  client: string | null;
  to: string;
  name: string | null;
  text: string;
  sent_at: string;
  channel?: MessageHandOff['channel'];
  media?: string[];
  template?: MessageHandOff['template'];
  suggestions?: { text: string; postback_data: string }[];
}

/** The webhook body of a hand-off: its channel fields only where they say more than "a plain SMS". */
export const webhookBody = (message: MessageHandOff): OutgoingMessage => ({
  id: message.id,
  business: message.business,
  client: message.client,
  to: message.to,
  name: message.name,
  text: message.text,
  sent_at: message.dispatchedAt.toISOString(),
  ...(message.channel !== 'sms' && { channel: message.channel }),
  ...(message.media.length > 0 && { media: message.media }),
  ...(message.template && { template: message.template }),
  ...(message.suggestions?.length && { suggestions: message.suggestions.map((s) => ({ text: s.text, postback_data: s.postbackData })) }),
});

export interface MessageProvider {
  readonly name: string;
  /** Delivers once per message id: a repeated call with the same id must not deliver twice. */
  /** `sender`: the number (or messaging service) the message goes out from, as stored with it; null: the deployment's. */
  deliver(message: MessageHandOff, sender?: string | null): Promise<{ providerRef?: string }>;
  /**
   * Asked before an attempt that follows one which may have reached the provider (a worker killed, an
   * answer lost): the provider's record of this message when it has one, so it is not sent twice.
   * Providers that honour the message id as an idempotency key need none.
   */
  findSent?(message: MessageHandOff, sender?: string | null): Promise<{ providerRef: string } | null>;
}
