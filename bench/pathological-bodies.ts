import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTelnyxCarrier } from '../src/carriers/telnyx';
import { createTwilioCarrier } from '../src/carriers/twilio';
import { createVonageCarrier } from '../src/carriers/vonage';
import { hubspotSignatureV3 } from '../src/crm';

/*
 * Bodies shaped to make a naive parser quadratic, and an attacker that posts them, for the bodies bench
 * and the test of the doors that read a body before they know the caller (api/in-process/pathological-bodies).
 */

export const MB = 1_000_000;

const fill = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length));

/** Each shape at about `bytes`. */
export const shapesOf = (bytes: number): Record<string, string> => ({
  'open <OrganizationId tags': fill('<OrganizationId ', bytes),
  'open <Notification> tags': fill('<Notification>', bytes),
  'nested tags': fill('<a>', bytes),
  'a huge attribute': `<a b="${'x'.repeat(bytes - 10)}"/>`,
  'nested JSON arrays': fill('[', bytes),
  'nested JSON objects': fill('{"a":', bytes),
  'a form of one key repeated': fill('a=&', bytes),
  'a form of many keys': Array.from({ length: Math.floor(bytes / 10) }, (_, i) => `k${i}=v`).join('&').slice(0, bytes),
});

/** A door that reads a body before it knows the caller, as an attacker (or a test) posts to it. */
export interface Door {
  name: string;
  url: string;
  /** The door's headers for this body (a signature is over the body sent). */
  headers: (body: string) => Record<string, string>;
}

const SECRETS = { hubspot: 'hubspot-client-secret', pipedriveUser: 'pd-user', pipedrivePassword: 'pd-password' };

/** What each CRM's connector is PUT with (`agents: ['a1']` beside it), so that its inbound door has a caller to check. */
export const CONNECTOR_SETTINGS = {
  hubspot: { client_secret: SECRETS.hubspot, access_token: 'pat-na1-x' },
  salesforce: { organization_id: '00D000000000001AAA', instance_url: 'https://acme.my.salesforce.com', access_token: 't' },
  pipedrive: { api_token: 'pd', webhook_user: SECRETS.pipedriveUser, webhook_password: SECRETS.pipedrivePassword },
};

/** One carrier of each kind, with made-up credentials, for an API whose callbacks are the doors. */
export function doorCarriers() {
  const telnyxKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  return {
    twilio: createTwilioCarrier({ accountSid: `AC${'0'.repeat(32)}`, authToken: 'twilio-auth-token', from: '+15550001000' }),
    telnyx: createTelnyxCarrier({ TELNYX_API_KEY: 'KEY', TELNYX_FROM: '+15550001000', TELNYX_PUBLIC_KEY: telnyxKey } as never),
    vonage: createVonageCarrier({ VONAGE_API_KEY: 'key', VONAGE_API_SECRET: 'secret', VONAGE_FROM: '15550001000', VONAGE_SIGNATURE_SECRET: 'vonage-signature-secret' } as never),
  };
}

const json = () => ({ 'content-type': 'application/json' });

/** The CRMs' inbound doors (the PUTs' `inbound_url`), each without and with its credential. */
export function crmDoors(inbound: Record<keyof typeof CONNECTOR_SETTINGS, string>): Door[] {
  const basic = `Basic ${Buffer.from(`${SECRETS.pipedriveUser}:${SECRETS.pipedrivePassword}`).toString('base64')}`;
  return [
    { name: 'HubSpot, unsigned', url: inbound.hubspot, headers: json },
    {
      name: 'HubSpot, signed',
      url: inbound.hubspot,
      headers: (body) => {
        const timestamp = String(Date.now());
        return { ...json(), 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': hubspotSignatureV3(SECRETS.hubspot, 'POST', inbound.hubspot, Buffer.from(body), timestamp) };
      },
    },
    { name: "Salesforce, without the URL's secret", url: inbound.salesforce.replace(/\/[^/]+$/, '/wrong'), headers: () => ({ 'content-type': 'text/xml' }) },
    { name: 'Salesforce, with it', url: inbound.salesforce, headers: () => ({ 'content-type': 'text/xml' }) },
    { name: 'Pipedrive, unauthenticated', url: inbound.pipedrive, headers: json },
    { name: 'Pipedrive, authenticated', url: inbound.pipedrive, headers: () => ({ ...json(), authorization: basic }) },
  ];
}

/** Each carrier's inbound and status callbacks, on the API origin that carrier's API listens on. */
export function carrierDoors(origins: Record<keyof ReturnType<typeof doorCarriers>, string>): Door[] {
  return (Object.keys(origins) as (keyof typeof origins)[]).flatMap((carrier) =>
    ['inbound', 'status'].map((kind) => ({
      name: `${carrier} ${kind} callback`,
      url: `${origins[carrier]}/providers/${carrier}/${kind}`,
      headers: () => ({ 'content-type': carrier === 'twilio' ? 'application/x-www-form-urlencoded' : 'application/json' }),
    })),
  );
}

/** Each door with each shape at 1 MB, and the carriers' (whose limit is 100 kB) at 99 kB too, so their parsers are reached. */
export function attacksOn(doors: Door[], carriers: Door[]): { door: Door; shape: string; body: string }[] {
  return [
    ...doors.flatMap((door) => Object.entries(shapesOf(MB)).map(([shape, body]) => ({ door, shape: `1 MB of ${shape}`, body }))),
    ...carriers.flatMap((door) => Object.entries(shapesOf(99_000)).map(([shape, body]) => ({ door, shape: `99 kB of ${shape}`, body }))),
  ];
}

/** Posts the requests one after the other, in a process of its own (as an attacker's would be), until killed. */
const ATTACKER = `
const { readFileSync } = require('node:fs');
const { bodies, requests } = JSON.parse(readFileSync(process.argv[1], 'utf8'));
(async () => {
  for (let i = 0; ; i++) {
    const { url, headers, body } = requests[i % requests.length];
    try { const r = await fetch(url, { method: 'POST', headers, body: bodies[body] }); await r.arrayBuffer(); } catch {}
  }
})();
`;

/**
 * The attacks written to a file in `dir` (each distinct body once), then `attack(file)` runs an attacker
 * on them until `stop()`. `plain`: each body replaced by as many bytes of `x`, the same doors at the same pace.
 */
export async function attackFile(dir: string, name: string, attacks: { door: Door; body: string }[], plain: boolean): Promise<string> {
  const bodies: string[] = [];
  const indexed = attacks.map(({ door, body: shaped }) => {
    const body = plain ? 'x'.repeat(shaped.length) : shaped;
    if (!bodies.includes(body)) bodies.push(body);
    return { url: door.url, headers: door.headers(body), body: bodies.indexOf(body) };
  });
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ bodies, requests: indexed }));
  return file;
}

export interface Attack {
  /** Whether the attacker still runs. */
  running(): boolean;
  stop(): void;
}

export function attack(file: string): Attack {
  const attacker = spawn(process.execPath, ['-e', ATTACKER, file], { stdio: 'ignore' });
  return { running: () => attacker.exitCode === null, stop: () => attacker.kill() };
}
