/** What a provider is handed: the contract's webhook body. */
export interface OutgoingMessage {
  id: string;
  business: string;
  client: string | null;
  to: string;
  name: string | null;
  text: string;
  sent_at: string;
}

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
