import { z } from 'zod';
import type { A2pRegistration, BusinessNumber } from '../../generated/prisma/client';
import { registrationView } from '../../views/number-registration';
import { activeNumberOfRcsAgent, activeNumbersOf, activeRegistration, everyActiveNumber, registerNumber, retireNumber } from '../../db/business-numbers';
import type { Prisma } from '../../db/prisma';
import type { SecretBox } from '../../secrets/secret-box';
import { Conflict, Invalid, NotFound } from '../errors';
import { BUSINESS_PATTERN, INVALID_BUSINESS, parseBody } from '../input/validation';
import { sealCredentials } from './credentials';
import { telnyxPublicKeyProblem } from '../../carriers/telnyx/public-key';
import { NumberRegistration } from './contract';
import type { NumberRegistrations } from './registration';
import { findRegistration, registrationsOf } from '../../db/a2p-registrations';
import { sendVerdict } from '../../domain/number-registration';
import { registrationOfRow } from '../../views/number-registration';

export interface NumberDeps {
  prisma: Prisma;
  secrets: SecretBox;
  /** The deployment's carrier: a business's number sends through it. Undefined: no carrier, no numbers. */
  carrier?: { name: string; sender: string };
  /** Each number's A2P registration, read from its carrier (registration.ts); undefined without a carrier. */
  registrations?: NumberRegistrations;
}

/** A business's number with its A2P registration as last read (null: never). */
export interface NumberWithRegistration {
  number: BusinessNumber;
  registration: A2pRegistration | null;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const secret = z.string().min(1).max(4096);
const sid = (prefix: string) => z.string().regex(new RegExp(`^${prefix}[0-9a-fA-F]{32}$`), `must be ${prefix} followed by 32 hexadecimal digits`);

const telnyxPublicKey = z
  .string()
  .max(4096)
  .superRefine((key, ctx) => {
    const problem = telnyxPublicKeyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The credentials each carrier takes: a Twilio (sub)account, a Telnyx API key, a Vonage application. */
const CREDENTIALS = {
  twilio: z.strictObject({ account_sid: sid('AC'), auth_token: secret }),
  simulator: z.strictObject({ account_sid: sid('AC'), auth_token: secret }),
  // Telnyx signs its webhooks with one key per account: a business's own account comes with its key.
  telnyx: z.strictObject({ api_key: secret, public_key: telnyxPublicKey }),
  // Vonage's signature secret is the account's: an application in the deployment's account shares its secret.
  vonage: z.strictObject({ application_id: z.string().min(1).max(100), private_key: secret, signature_secret: secret.optional() }),
} as const;

/** A registration as the operator API shows it: never its credentials, only whether the business has its own account. */
export const numberView = (row: BusinessNumber, registration: A2pRegistration | null = null) => ({
  business: row.business,
  number: row.number,
  carrier: row.carrier,
  messaging_service_sid: row.messagingServiceSid,
  own_account: row.credentials !== null,
  channels: row.channels,
  ...(row.rcsAgent !== null && { rcs_agent: row.rcsAgent }),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  registration: registrationView(row.number, registration),
});

function checkPath(business: string, number: string): void {
  if (!BUSINESS_PATTERN.test(business)) throw new Invalid(INVALID_BUSINESS);
  if (!E164.test(number)) throw new Invalid('Invalid number: must be an E.164 phone number such as +14155550123');
}

/**
 * Registers `number` for `business` (or changes its registration): 409 when another business holds it
 * or it is the deployment's shared sender, which belongs to no business.
 */
export async function putNumber(deps: NumberDeps, business: string, number: string, body: unknown): Promise<{ number: BusinessNumber; created: boolean; registration: A2pRegistration | null }> {
  checkPath(business, number);
  const request = parseBody(NumberRegistration, body);
  if (!deps.carrier) throw new Conflict('This deployment sends through no carrier (MESSAGE_PROVIDER is log or webhook): it has no numbers');
  if (request.carrier !== deps.carrier.name) throw new Invalid(`Invalid carrier: this deployment sends through ${deps.carrier.name}`);
  if (number === deps.carrier.sender) throw new Conflict(`${number} is the deployment's shared sender: it belongs to no business`);
  let credentials: string | null | undefined;
  if (request.credentials) {
    const checked = CREDENTIALS[request.carrier].safeParse(request.credentials);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new Invalid(`Invalid credentials${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`);
    }
    credentials = sealCredentials(deps.secrets, business, number, checked.data);
  } else if (request.credentials === null) credentials = null;
  await checkRcsSender(deps, business, number, request);
  const outcome = await registerNumber(deps.prisma, {
    business,
    number,
    carrier: request.carrier,
    messagingServiceSid: request.messaging_service_sid ?? null,
    credentials,
    channels: request.channels && [...new Set(request.channels)],
    ...(request.rcs_agent !== undefined && { rcsAgent: request.rcs_agent }),
  });
  if ('heldBy' in outcome) throw new Conflict(`${number} belongs to another business: retire it there first`);
  return { number: outcome.registered, created: outcome.created, registration: await readAfterPut(deps, business, number) };
}

/** A number just registered has its A2P registration read at once where it is enforced (registration.ts). */
async function readAfterPut(deps: NumberDeps, business: string, number: string): Promise<A2pRegistration | null> {
  return deps.registrations ? deps.registrations.afterPut(business, number) : findRegistration(deps.prisma, number);
}

/**
 * An RCS sender needs its agent (the carrier names it in RCS callbacks, and Telnyx and Vonage send from
 * it) and, on Twilio, the Messaging Service whose sender pool holds the agent and the number: Twilio
 * falls back from one to the other only inside a service.
 */
async function checkRcsSender(deps: Pick<NumberDeps, 'prisma'>, business: string, number: string, request: z.infer<typeof NumberRegistration>): Promise<void> {
  const stored = request.channels === undefined || request.rcs_agent === undefined ? await activeRegistration(deps.prisma, number) : null;
  const mine = stored?.business === business ? stored : null;
  const channels = request.channels ?? mine?.channels ?? [];
  if (!channels.includes('rcs')) return;
  const agent = request.rcs_agent === undefined ? mine?.rcsAgent : request.rcs_agent;
  if (!agent) throw new Invalid('Invalid rcs_agent: a number that carries rcs needs its RCS agent as the carrier names it');
  // The agent names its number in the carrier's callbacks: one agent, one number.
  const other = await activeNumberOfRcsAgent(deps.prisma, agent, number);
  if (other) throw new Conflict(`RCS agent ${agent} is the RCS sender of ${other}: retire it there first`);
  if ((request.carrier === 'twilio' || request.carrier === 'simulator') && !request.messaging_service_sid) {
    throw new Invalid('Invalid messaging_service_sid: RCS on Twilio goes through the Messaging Service whose sender pool holds the RCS sender and this number');
  }
}

export async function listNumbers(deps: Pick<NumberDeps, 'prisma'>, business: string): Promise<NumberWithRegistration[]> {
  if (!BUSINESS_PATTERN.test(business)) throw new Invalid(INVALID_BUSINESS);
  return withRegistrations(deps.prisma, await activeNumbersOf(deps.prisma, business));
}

async function withRegistrations(prisma: NumberDeps['prisma'], rows: BusinessNumber[]): Promise<NumberWithRegistration[]> {
  const registrations = await registrationsOf(prisma, rows.map((row) => row.number));
  return rows.map((row) => ({ number: row, registration: registrations.get(row.number) ?? null }));
}

/** Reads the number's A2P registration from its carrier now (the operator's refresh). */
export async function refreshNumberRegistration(deps: NumberDeps, business: string, number: string): Promise<NumberWithRegistration> {
  checkPath(business, number);
  if (!deps.registrations) throw new Conflict('This deployment sends through no carrier (MESSAGE_PROVIDER is log or webhook): it has no numbers');
  const registration = await deps.registrations.refresh(business, number);
  const row = (await activeNumbersOf(deps.prisma, business)).find((candidate) => candidate.number === number);
  if (!row) throw new NotFound('Number not found');
  return { number: row, registration };
}

/** Every business's numbers whose registration, as last read, does not let them send (`can_send=false`), or all of them. */
export async function numbersAcrossBusinesses(deps: Pick<NumberDeps, 'prisma'>, canSend: boolean | undefined): Promise<NumberWithRegistration[]> {
  const rows = await everyActiveNumber(deps.prisma);
  const all = await withRegistrations(deps.prisma, rows);
  if (canSend === undefined) return all;
  return all.filter(({ number, registration }) => registration !== null && sendVerdict(number.number, registrationOfRow(registration)).allowed === canSend);
}

/** Retires the number: messages already sent from it keep it as their sender, for their receipts and replies. */
export async function deleteNumber(deps: Pick<NumberDeps, 'prisma'>, business: string, number: string): Promise<void> {
  checkPath(business, number);
  if (!(await retireNumber(deps.prisma, business, number))) throw new NotFound('Number not found');
}
