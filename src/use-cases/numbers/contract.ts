import { z } from 'zod';
import { NUMBER_CHANNELS } from '../../domain/channels';
import { REGISTRATION_STATUSES } from '../../domain/number-registration';
import { DateTime } from '../input/contract';

/*
 * The contract of a business's numbers (`/admin/businesses/{business}/numbers`): the body of the PUT,
 * which parseBody reads with this schema (manage.ts then checks the credentials by carrier), and the
 * view of a registration. The OpenAPI document is generated from these.
 */

const CARRIERS = ['twilio', 'telnyx', 'vonage', 'simulator'] as const;
const E164_PATTERN = /^\+[1-9][0-9]{6,14}$/;

const CREDENTIALS_DESCRIPTION =
  'The business\'s own carrier account, encrypted at rest (AES-256-GCM under `SECRETS_KEY`), never answered back nor logged. ' +
  'Twilio (and the simulator): `{ "account_sid": "AC…", "auth_token": "…" }` (a subaccount); Telnyx: `{ "api_key": "…", "public_key": "…" }` ' +
  '(the account\'s Ed25519 webhook key, base64 or PEM, which verifies its webhooks); ' +
  'Vonage: `{ "application_id": "…", "private_key": "-----BEGIN PRIVATE KEY-----…", "signature_secret": "…" }` (the signature secret of the ' +
  'application\'s account, which verifies its webhooks; absent: `VONAGE_SIGNATURE_SECRET`, for an application in the deployment\'s account). Absent: kept as stored (the deployment\'s account on a first ' +
  'registration); null: back to the deployment\'s account.';

export const NumberRegistration = z
  .strictObject({
    carrier: z.enum(CARRIERS).meta({ description: 'Must be the deployment\'s carrier (MESSAGE_PROVIDER).' }),
    messaging_service_sid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').nullish(),
    credentials: z.record(z.string(), z.unknown()).nullish().meta({ description: CREDENTIALS_DESCRIPTION }),
    channels: z
      .array(z.enum(NUMBER_CHANNELS, { error: 'each must be sms, mms, whatsapp or rcs' }))
      .min(1, 'must name at least one of sms, mms, whatsapp, rcs')
      .optional()
      .meta({
        description:
          'What the number carries (as registered with the carrier: a WhatsApp sender, an MMS-capable number); repeats are dropped. ' +
          'Absent: kept as stored; `["sms", "mms"]` on a first registration (and for numbers registered before channels existed).',
        examples: [['sms', 'mms', 'whatsapp']],
      }),
    rcs_agent: z
      .string()
      .regex(/^[A-Za-z0-9_:.@-]{1,128}$/, 'must be 1-128 letters, digits, _ : . @ or -')
      .nullish()
      .meta({
        description:
          'Its RCS agent as the carrier names it: Twilio\'s RCS sender (`rcs:acme_xyz_agent`, in the sender pool of the number\'s `messaging_service_sid`, which RCS then needs), ' +
          'Telnyx\'s `agent_id`, Vonage\'s RCS sender id. Needed with `rcs` in `channels`: RCS goes from it and falls back to SMS/MMS from this number. Absent: kept as stored; null: none.',
        examples: ['rcs:acme_xyz_agent'],
      }),
  })
  .meta({
    id: 'NumberRegistration',
    examples: [{ carrier: 'twilio', credentials: { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: '…' }, channels: ['sms', 'mms', 'whatsapp'] }],
  });

const STATUS = z.enum(REGISTRATION_STATUSES);

export const NumberA2pRegistration = z
  .strictObject({
    kind: z.enum(['10dlc', 'toll_free', 'none']).meta({ description: 'What US carriers ask of the number: a 10DLC campaign (a US local number), a toll-free verification, or nothing (any other number).' }),
    brand: z.strictObject({ id: z.string().nullable(), status: STATUS }).nullable(),
    campaign: z.strictObject({ id: z.string().nullable(), use_case: z.string().nullable(), status: STATUS.meta({ description: 'The campaign\'s, with the number\'s assignment to it: approved only once both are.' }) }).nullable(),
    toll_free: z.strictObject({ status: STATUS }).nullable(),
    can_send: z.boolean().meta({ description: 'Whether its A2P texts are allowed now (in production a send from it is refused otherwise: docs/messages.md).' }),
    reason: z.string().nullable().meta({ description: 'Why not, in the words a refused send shows; or the warning when the carrier could not tell.', examples: ['Sender +14155550100 is not in an approved 10DLC campaign (pending)'] }),
    read_at: DateTime,
    changed_at: DateTime,
  })
  .meta({ id: 'NumberA2pRegistration' });

/** A registration, as the document shows it. */
export const BUSINESS_NUMBER_EXAMPLE = {
  business: 'acme',
  number: '+15005550001',
  carrier: 'twilio',
  messaging_service_sid: null,
  own_account: true,
  channels: ['sms', 'mms', 'whatsapp'],
  created_at: '2026-11-25T17:00:00.000Z',
  updated_at: '2026-11-25T17:00:00.000Z',
  registration: {
    kind: '10dlc',
    brand: { id: 'BN0123456789abcdef0123456789abcdef', status: 'approved' },
    campaign: { id: 'QE2c6890da8086d771620e9b13fadeba0b', use_case: 'CUSTOMER_CARE', status: 'pending' },
    toll_free: null,
    can_send: false,
    reason: 'Sender +15005550001 is not in an approved 10DLC campaign (pending)',
    read_at: '2026-11-25T17:05:00.000Z',
    changed_at: '2026-11-25T17:05:00.000Z',
  },
};

export const BusinessNumber = z
  .strictObject({
    business: z.string(),
    number: z.string().regex(E164_PATTERN),
    carrier: z.enum(CARRIERS),
    messaging_service_sid: z.string().nullable().meta({ description: 'Twilio messaging service (or Telnyx messaging profile) to send through instead of the number itself.' }),
    own_account: z.boolean().meta({ description: 'Whether the business sends with its own carrier account (`credentials`); they are never answered back.' }),
    channels: z.array(z.enum(NUMBER_CHANNELS)).meta({
      description: 'What it carries: `sms`, `mms` (SMS with media), `whatsapp`, `rcs`. A message goes from a number of the business that carries what it needs.',
    }),
    rcs_agent: z.string().optional().meta({ description: 'Its RCS agent (only when it has one): an `rcs` message goes from it, falling back to this number.' }),
    created_at: DateTime,
    updated_at: DateTime,
    registration: NumberA2pRegistration.nullable().meta({ description: 'Its A2P registration as its carrier last said it (10DLC brand and campaign, toll-free verification); null until first read.' }),
  })
  .meta({ id: 'BusinessNumber', examples: [BUSINESS_NUMBER_EXAMPLE] });

export const BusinessNumberList = z.strictObject({ numbers: z.array(BusinessNumber) });

export const NUMBER_SCHEMAS = { requests: [NumberRegistration], responses: [BusinessNumber] };
