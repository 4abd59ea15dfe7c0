import type { Config } from '../config/index';
import { createTelnyxCarrier } from './telnyx';
import { createTwilioCarrier, twilioSettingsOf } from './twilio';
import { type Carrier, CarrierRejected } from './types';
import { createVonageCarrier } from './vonage';

/*
 * The carriers of businesses' own numbers. A business's number sends through the deployment's carrier,
 * from that number, with the business's own account when it registered one (a Twilio subaccount, a
 * Telnyx key, a Vonage application); callbacks about the number are verified with that account.
 */

/** A business's carrier account as the operator gave it (opened from its sealed form only here). */
export interface CarrierCredentials {
  account_sid?: string;
  auth_token?: string;
  api_key?: string;
  application_id?: string;
  private_key?: string;
  /** Telnyx: the account's Ed25519 public key its webhooks are signed with. */
  public_key?: string;
  /** Vonage: the account's signature secret its webhooks are signed with (absent: the deployment's, the same account's). */
  signature_secret?: string;
}

/** A registered number as the carriers need it. */
export interface NumberAccount {
  id: string;
  business: string;
  number: string;
  messagingServiceSid: string | null;
  /** Its RCS agent (Telnyx's agent_id, Vonage's RCS sender; Twilio's is in the Messaging Service), when it carries RCS. */
  rcsAgent?: string | null;
  /** Whether it was retired (a message accepted before is refused rather than sent from a number no longer the business's). */
  retired: boolean;
  /** When its registration last changed: a cached carrier older than this is rebuilt. */
  updatedAt: Date;
  credentials: CarrierCredentials | null;
}

export interface NumberAccounts {
  /** The business's registration (active, else its latest retired one) of the number. */
  ofBusiness(business: string, number: string): Promise<NumberAccount | null>;
  /** Whoever holds the number now, else held it last. */
  holder(number: string): Promise<NumberAccount | null>;
}

export interface NumberCarriers {
  readonly deployment: Carrier;
  /** The carrier a message of `business` from `sender` goes out through: the deployment's for its own sender (or none). */
  forSender(business: string, sender: string | null): Promise<Carrier>;
  /** The account `business` received on `number` with, even retired since: its files are still fetched with it. */
  forReceived(business: string, number: string | null): Promise<Carrier>;
  /** The carrier whose account signed a callback about our number `number` (undefined: the deployment's). */
  forNumber(number: string | undefined): Promise<Carrier>;
}

/** The number's carrier: the deployment's kind and settings, sending from the number, with its own account when it has one. */
export function numberCarrierOf(config: Config, account: NumberAccount): Carrier {
  const credentials = account.credentials;
  switch (config.MESSAGE_PROVIDER) {
    case 'twilio':
    case 'simulator':
      return createTwilioCarrier({
        ...twilioSettingsOf(config),
        name: config.MESSAGE_PROVIDER,
        from: account.messagingServiceSid ? undefined : account.number,
        messagingServiceSid: account.messagingServiceSid ?? undefined,
        ...(account.rcsAgent && { rcsFallbackFrom: account.number }),
        ...(credentials?.account_sid && credentials.auth_token && { accountSid: credentials.account_sid, authToken: credentials.auth_token, apiKey: undefined }),
      });
    case 'telnyx':
      return createTelnyxCarrier({
        ...config,
        TELNYX_FROM: account.number,
        TELNYX_MESSAGING_PROFILE_ID: account.messagingServiceSid ?? config.TELNYX_MESSAGING_PROFILE_ID,
        ...(account.rcsAgent && { TELNYX_RCS_AGENT_ID: account.rcsAgent }),
        ...(credentials?.api_key && { TELNYX_API_KEY: credentials.api_key }),
        ...(credentials?.public_key && { TELNYX_PUBLIC_KEY: credentials.public_key }),
      });
    case 'vonage':
      return createVonageCarrier({
        ...config,
        VONAGE_FROM: account.number,
        ...(account.rcsAgent && { VONAGE_RCS_FROM: account.rcsAgent }),
        // Its own application: a callback's token names that application, not the deployment's API key.
        ...(credentials?.application_id &&
          credentials.private_key && { VONAGE_APPLICATION_ID: credentials.application_id, VONAGE_PRIVATE_KEY: credentials.private_key, VONAGE_API_KEY: undefined, VONAGE_API_SECRET: undefined }),
        ...(credentials?.signature_secret && { VONAGE_SIGNATURE_SECRET: credentials.signature_secret }),
      });
    default:
      throw new Error(`MESSAGE_PROVIDER=${config.MESSAGE_PROVIDER} has no carrier to send from a business's number`);
  }
}

export function numberCarriers(deployment: Carrier, accounts: NumberAccounts, build: (account: NumberAccount) => Carrier): NumberCarriers {
  const built = new Map<string, { updatedAt: number; carrier: Carrier }>();
  const carrierOf = (account: NumberAccount): Carrier => {
    const cached = built.get(account.id);
    if (cached && cached.updatedAt === account.updatedAt.getTime()) return cached.carrier;
    const carrier = build(account);
    built.set(account.id, { updatedAt: account.updatedAt.getTime(), carrier });
    return carrier;
  };
  return {
    deployment,
    async forSender(business, sender) {
      if (sender === null || sender === deployment.sender) return deployment;
      const account = await accounts.ofBusiness(business, sender);
      if (!account) return deployment;
      if (account.retired) throw new CarrierRejected('number-retired', 'Its sending number was retired from the business');
      return carrierOf(account);
    },
    async forReceived(business, number) {
      if (number === null || number === deployment.sender) return deployment;
      const account = await accounts.ofBusiness(business, number);
      return account ? carrierOf(account) : deployment;
    },
    async forNumber(number) {
      if (number === undefined || number === deployment.sender) return deployment;
      const account = await accounts.holder(number);
      return account ? carrierOf(account) : deployment;
    },
  };
}
