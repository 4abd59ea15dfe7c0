import type { CrmConnector } from '../../generated/prisma/client';

/*
 * What an inbound CRM request is checked with (the business's connector and its opened credentials),
 * kept in this process's memory for a short while so a flood of unsigned requests costs neither a
 * database read nor a decryption each. A PUT, DELETE or token rotation in this process forgets the
 * entry at once; another API process sees the change within INBOUND_KEY_TTL_MS.
 */

export const INBOUND_KEY_TTL_MS = 30_000;
/** Business names are the caller's to choose: the entries kept are bounded, the oldest dropped first. */
const MAX_ENTRIES = 10_000;

export interface InboundKey {
  connector: CrmConnector;
  /** The connector's credentials, opened. */
  secrets: Record<string, string>;
}

export class InboundKeyCache {
  private readonly entries = new Map<string, { expiresAt: number; key: Promise<InboundKey | null> }>();

  constructor(
    private readonly ttlMs = INBOUND_KEY_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached key of `business`'s `crm` connector (null: none), else `load`'s, shared by the requests that wait on it. */
  get(business: string, crm: string, load: () => Promise<InboundKey | null>): Promise<InboundKey | null> {
    const name = `${crm}/${business}`;
    const cached = this.entries.get(name);
    if (cached && cached.expiresAt > this.now()) return cached.key;
    this.entries.delete(name);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    const key = load();
    const entry = { expiresAt: this.now() + this.ttlMs, key };
    this.entries.set(name, entry);
    key.catch(() => this.entries.get(name) === entry && this.entries.delete(name));
    return key;
  }

  /** After the connector changed in this process: the next request reads it again. */
  forget(business: string, crm: string): void {
    this.entries.delete(`${crm}/${business}`);
  }
}
