import type { A2pRegistration as Row } from '../../generated/prisma/client';
import type { NumberCarriers } from '../../carriers/numbers';
import { activeRegistration } from '../../db/business-numbers';
import { findRegistration, registrationsReadBefore, saveRegistration } from '../../db/a2p-registrations';
import type { Prisma } from '../../db/prisma';
import { enforcementFor, registrationKindOf, sendVerdict, unreadableRegistration, type A2pRegistration } from '../../domain/number-registration';
import { logger } from '../../logger';
import { registrationOfRow } from '../../views/number-registration';
import { Conflict, NotFound, Unavailable } from '../errors';

const WARN_EVERY_MS = 60 * 60 * 1000;

/*
 * Each business number's A2P registration (docs/design.md, "Number registration (10DLC, toll-free)"):
 * read from the number's carrier (with the business's own account when it has one), stored, refreshed on
 * a schedule, on demand and when a carrier refuses a text for it; and the gate a send passes at accept
 * and again when due.
 */

export interface RegistrationSettings {
  /** REQUIRE_A2P_REGISTRATION: a refusal is a 409 (or a failed message); otherwise only a warning. */
  required: boolean;
  /** A2P_REGISTRATION_WARN_ONLY: carriers and countries where a refusal is only a warning. */
  warnOnly: readonly string[];
}

export interface NumberRegistrations {
  /** Reads the number's registration from its carrier now and stores it; the row after. Unavailable when the carrier cannot be asked. */
  refresh(business: string, number: string): Promise<Row>;
  /** Refreshes the `limit` numbers read longest ago (never read first), read before `before` (of `businesses` when given); how many were read, and failed. */
  refreshDue(before: Date, limit: number, businesses?: readonly string[], progress?: () => void): Promise<{ read: number; failed: number }>;
  /**
   * A number just registered (PUT): read from its carrier now where its registration is enforced, else
   * the stored row (the schedule and the operator's refresh read it): nothing asks a carrier on the way of
   * a request where enforcement is off, as in development.
   */
  afterPut(business: string, number: string): Promise<Row | null>;
  /** A gate for one request or chunk: asks about each sender once. */
  gate(): RegistrationGate;
  /**
   * A carrier refused a message of `business` from `sender` with `code`: when the code says the sender's
   * registration forbids it (Twilio 30034 and the like), the registration is read again at once. Best effort.
   */
  afterRefusal(business: string, sender: string | null, code: string | null | undefined): Promise<void>;
}

/** Throws Conflict with the reason when `sender` of `business` may not send A2P texts and the refusal is enforced. */
export type RegistrationGate = (business: string, sender: string | null) => Promise<void>;

const RETRY_AFTER_SECONDS = 30;

export function numberRegistrations(prisma: Prisma, carriers: NumberCarriers, settings: RegistrationSettings): NumberRegistrations {
  async function read(business: string, number: string): Promise<{ carrier: string; reading: A2pRegistration }> {
    const carrier = await carriers.forSender(business, number);
    if (registrationKindOf(number) === 'none') return { carrier: carrier.name, reading: unreadableRegistration(number) };
    if (!carrier.readRegistration) return { carrier: carrier.name, reading: unreadableRegistration(number) };
    return { carrier: carrier.name, reading: await carrier.readRegistration(number) };
  }

  async function refresh(business: string, number: string): Promise<Row> {
    const holder = await activeRegistration(prisma, number);
    if (!holder || holder.business !== business) throw new NotFound('Number not found');
    let outcome: Awaited<ReturnType<typeof read>>;
    try {
      outcome = await read(business, number);
    } catch (error) {
      logger.warn({ event: 'number.registration_read_failed', business, number, err: error }, 'the carrier could not be asked for the number\'s registration');
      throw new Unavailable('The carrier could not be asked for this number\'s registration: try again', RETRY_AFTER_SECONDS);
    }
    const saved = await saveRegistration(prisma, { number, business, carrier: outcome.carrier, reading: outcome.reading });
    if (saved.changed) logger.info({ event: 'number.registration_changed', business, number }, 'number registration changed');
    return saved.row;
  }

  const enforced = (number: string) => enforcementFor(settings, carriers.deployment.name, number) === 'enforce';

  /** The stored registration; where it is enforced and was never read, read from the carrier first (null: it still could not be). */
  async function known(business: string, sender: string): Promise<A2pRegistration | null> {
    const stored = await findRegistration(prisma, sender);
    const row = stored ?? (enforced(sender) ? await refresh(business, sender).catch(() => null) : null);
    return row && registrationOfRow(row);
  }

  // A number's warning once an hour per process, not once a send: a carrier whose registrations cannot be read (Vonage) would log every text.
  const warnedAt = new Map<string, number>();
  function warnOnce(event: string, business: string, number: string, text: string): void {
    const now = Date.now();
    if (now - (warnedAt.get(`${event} ${number}`) ?? -Infinity) < WARN_EVERY_MS) return;
    warnedAt.set(`${event} ${number}`, now);
    logger.warn({ event, business, number }, text);
  }

  async function check(business: string, sender: string | null): Promise<void> {
    if (sender === null || sender === carriers.deployment.sender || registrationKindOf(sender) === 'none') return;
    const verdict = sendVerdict(sender, await known(business, sender));
    if (verdict.allowed) {
      if (verdict.warning) warnOnce('number.registration_unknown', business, sender, verdict.warning);
      return;
    }
    if (enforced(sender)) throw new Conflict(verdict.reason);
    warnOnce('number.registration_not_enforced', business, sender, verdict.reason);
  }

  return {
    refresh,
    async refreshDue(before, limit, businesses, progress) {
      const result = { read: 0, failed: 0 };
      for (const { business, number } of await registrationsReadBefore(prisma, before, limit, businesses)) {
        progress?.();
        try {
          await refresh(business, number);
          result.read += 1;
        } catch {
          result.failed += 1;
        }
      }
      return result;
    },
    async afterPut(business, number) {
      if (!enforced(number) || registrationKindOf(number) === 'none') return findRegistration(prisma, number);
      try {
        return await refresh(business, number);
      } catch {
        // Logged by refresh; the schedule reads it again.
        return findRegistration(prisma, number);
      }
    },
    async afterRefusal(business, sender, code) {
      // A number's carrier is the deployment's kind: its codes say it without looking the number up.
      if (!code || sender === null || sender === carriers.deployment.sender || !carriers.deployment.isRegistrationCode?.(code)) return;
      try {
        await refresh(business, sender);
      } catch (error) {
        logger.warn({ event: 'number.registration_read_failed', business, number: sender, err: error }, 'the registration is read again by the schedule');
      }
    },
    gate() {
      const asked = new Map<string, Promise<void>>();
      return (business, sender) => {
        const key = `${business}\n${sender}`;
        if (!asked.has(key)) asked.set(key, check(business, sender));
        return asked.get(key)!;
      };
    },
  };
}
