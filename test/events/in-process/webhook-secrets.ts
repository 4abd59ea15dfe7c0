import { numberAccountOf, sealCredentials } from '../../../src/use-cases/numbers/credentials';
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/config/index';
import { createPrisma, type Prisma } from '../../../src/db/prisma';
import { insertSubscriptionBelowCap, resealSubscriptionSecrets, rotateSubscriptionSecret, signingSecrets } from '../../../src/db/webhook-subscriptions';
import { dataPaths } from '../../../src/paths';
import { secretBoxOf } from '../../../src/secrets/configured';
import { generateNamedKey, parseKeyList } from '../../../src/config/key-list';
import { SecretBox } from '../../../src/secrets/secret-box';
import { newWebhookSecret } from '../../../src/use-cases/webhooks/secret';
import { createEmptyDatabase } from '../../support/database';
import { receivedEvents, subscribe, verified } from '../../support/events';
import { entryPointEnv, PROJECT_ROOT } from '../../support/process';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { receiversClosedAfterAll } from '../../support/webhook-receiver';
import { testDir } from '../../support/temp-dir';

/*
 * Webhook secrets at rest: sealed with SECRETS_KEY (AES-256-GCM) in the row, opened only to sign;
 * plain rows from before keep signing until resealed; a new first key takes over every row through
 * the reseal (the worker's boot, `npm run secrets:rotate`), after which the old key may go.
 */

const run = promisify(execFile);
const OLD_KEY = generateNamedKey('2026-05');
const NEW_KEY = generateNamedKey('2026-11');
const boxOf = (value: string) => new SecretBox(parseKeyList('SECRETS_KEY', value));

let stack: TestStack;
const receiver = receiversClosedAfterAll();

beforeAll(async () => {
  stack = await startTestStack({ secretsKey: OLD_KEY });
});
afterAll(() => stack.stop());

type StoredRow = { secret: string; previous_secret: string | null };
const storedRow = async (prisma: Prisma, id: string): Promise<StoredRow> =>
  (await prisma.$queryRaw<StoredRow[]>`SELECT secret, previous_secret FROM webhook_subscriptions WHERE id = ${id}::uuid`)[0];

/** Neither the secret (`whsec_…`) nor its key bytes in base64 appear anywhere in the stored value. */
function expectNoPlain(stored: string | null, secret: string): void {
  expect(stored).not.toContain(secret);
  expect(stored).not.toContain(secret.slice('whsec_'.length));
}

test('the row holds the secret sealed under SECRETS_KEY, never plain, and deliveries are signed with the secret the answer showed', async () => {
  const hooks = await receiver();
  const token = stack.token(uniqueName('user'));
  const created = await subscribe(stack.api, token, hooks, { events: ['message.*'] });
  const row = await storedRow(stack.prisma, created._id);
  expect(row.secret).toMatch(/^v1:2026-05:[A-Za-z0-9+/]+=*:[A-Za-z0-9+/]+=*$/);
  expectNoPlain(row.secret, created.secret);

  const rotated = (await stack.api('POST', `/webhooks/${created._id}/rotate-secret`, { token })).body;
  const afterRotation = await storedRow(stack.prisma, created._id);
  for (const stored of [afterRotation.secret, afterRotation.previous_secret]) {
    expect(stored).toMatch(/^v1:2026-05:/);
    expectNoPlain(stored, created.secret);
    expectNoPlain(stored, rotated.secret);
  }
  // Nothing the owner reads back carries a secret, sealed or not.
  const listed = JSON.stringify((await stack.api('GET', '/webhooks', { token })).body);
  expect(listed).not.toMatch(/whsec_|v1:2026-05/);

  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: 'PT1H' } })).status).toBe(202);
  const [request] = await receivedEvents(hooks, 1);
  expect(verified(rotated.secret, request).type).toBe('message.scheduled');
  expect(verified(created.secret, request).type).toBe('message.scheduled');
});

test('a plain secret stored before encryption keeps signing, and the reseal seals it without changing it', async () => {
  const hooks = await receiver();
  const userId = uniqueName('user');
  const token = stack.token(userId);
  const plain = newWebhookSecret();
  const legacy = await stack.prisma.webhookSubscription.create({
    data: { business: stack.business, ownerId: userId, url: hooks.url, events: ['message.*'], description: null, secret: plain },
  });
  const updatedAt = legacy.updatedAt.toISOString();

  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: 'PT1H' } })).status).toBe(202);
  expect(verified(plain, (await receivedEvents(hooks, 1))[0]).type).toBe('message.scheduled');

  const result = await resealSubscriptionSecrets(stack.prisma, stack.services.secrets);
  expect(result.unreadable.map((row) => row.id)).not.toContain(legacy.id);
  const row = await storedRow(stack.prisma, legacy.id);
  expect(row.secret).toMatch(/^v1:2026-05:/);
  expectNoPlain(row.secret, plain);
  // The owner sees no change: the same secret signs, and the subscription was not "updated".
  expect((await stack.api('GET', `/webhooks/${legacy.id}`, { token })).body.updated_at).toBe(updatedAt);
  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Again', delay: 'PT1H' } })).status).toBe(202);
  expect(verified(plain, (await receivedEvents(hooks, 2))[1]).type).toBe('message.scheduled');
});

/** A new, empty, migrated database on the run's PostgreSQL server: the rotation command reads every row of it. */
async function freshDatabase(): Promise<string> {
  const url = await createEmptyDatabase('secrets');
  const migrated = await tsx(['src/main/migrate.ts', 'deploy'], { DATABASE_URL: url });
  expect(migrated.code).toBe(0);
  return url;
}

const rotateCommand = (env: Record<string, string>) => tsx(['src/main/secrets-rotate.ts'], env);

async function tsx(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), args, { cwd: PROJECT_ROOT, env: entryPointEnv(env), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('rotation: with a new key first, rows under the old key still open; npm run secrets:rotate reseals them, after which the old key can go', async () => {
  const url = await freshDatabase();
  const prisma = createPrisma(url, 2);
  try {
    const oldBox = boxOf(OLD_KEY);
    const scope = { business: 'acme', ownerId: 'u1' };
    const subscription = (secret: string) => ({ url: 'https://hooks.example/in', events: ['*'], description: null, secret });
    const first = newWebhookSecret();
    const rotatedFrom = newWebhookSecret();
    const rotatedTo = newWebhookSecret();
    const plain = newWebhookSecret();
    const insertSubscription = async (box: typeof oldBox, ...rest: [typeof scope, ReturnType<typeof subscription>]) => (await insertSubscriptionBelowCap(prisma, box, ...rest, 20))!;
    const sealed = await insertSubscription(oldBox, scope, subscription(first));
    const withPrevious = await insertSubscription(oldBox, scope, subscription(rotatedFrom));
    await rotateSubscriptionSecret(prisma, oldBox, scope, withPrevious.id, rotatedTo);
    const legacy = await prisma.webhookSubscription.create({ data: { ...scope, ...subscription(plain) } });
    const lost = await insertSubscription(boxOf(generateNamedKey('gone')), scope, subscription(newWebhookSecret()));
    // A business's own carrier account, sealed under the old key too.
    const authToken = newWebhookSecret();
    const number = await prisma.businessNumber.create({
      data: { business: 'acme', number: '+15550009999', carrier: 'twilio', credentials: sealCredentials(oldBox, 'acme', '+15550009999', { account_sid: `AC${'0'.repeat(32)}`, auth_token: authToken }) },
    });

    const rotatedBox = boxOf(`${NEW_KEY},${OLD_KEY}`);
    const row = (id: string) => prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(signingSecrets(await row(sealed.id), rotatedBox)).toEqual([first]);

    const rotation = await rotateCommand({ DATABASE_URL: url, SECRETS_KEY: `${NEW_KEY},${OLD_KEY}` });
    // The row under a key SECRETS_KEY no longer has is reported by id, and the command fails so the operator looks.
    expect(rotation.code).toBe(1);
    expect(rotation.stdout).toContain('webhook subscriptions: 3 resealed under key 2026-11, 1 unreadable');
    expect(rotation.stderr).toContain(`webhook subscription ${lost.id}: Stored secret is sealed with unknown key id "gone": add it to SECRETS_KEY`);
    for (const secret of [first, rotatedFrom, rotatedTo, plain, authToken]) expect(rotation.stdout + rotation.stderr).not.toContain(secret);
    expect(rotation.stdout).toContain("business numbers' carrier credentials: 1 resealed under key 2026-11, 0 unreadable");
    const resealedNumber = await prisma.businessNumber.findUniqueOrThrow({ where: { id: number.id } });
    expect(resealedNumber.credentials).toMatch(/^v1:2026-11:/);
    expect(numberAccountOf(boxOf(NEW_KEY), resealedNumber).credentials).toEqual({ account_sid: `AC${'0'.repeat(32)}`, auth_token: authToken });

    const newOnly = boxOf(NEW_KEY);
    for (const id of [sealed.id, withPrevious.id, legacy.id]) {
      const stored = await storedRow(prisma, id);
      expect(stored.secret).toMatch(/^v1:2026-11:/);
      if (stored.previous_secret) expect(stored.previous_secret).toMatch(/^v1:2026-11:/);
    }
    expect(signingSecrets(await row(sealed.id), newOnly)).toEqual([first]);
    expect(signingSecrets(await row(withPrevious.id), newOnly)).toEqual([rotatedTo, rotatedFrom]);
    expect(signingSecrets(await row(legacy.id), newOnly)).toEqual([plain]);
    // What the old key sealed (the row as first written) opens no more once the old key is gone.
    expect(() => signingSecrets(sealed, newOnly)).toThrow('unknown key id "2026-05"');

    await prisma.webhookSubscription.delete({ where: { id: lost.id } });
    const again = await rotateCommand({ DATABASE_URL: url, SECRETS_KEY: NEW_KEY });
    expect({ code: again.code, stdout: again.stdout.trim() }).toEqual({
      code: 0,
      stdout: "webhook subscriptions: 0 resealed under key 2026-11, 0 unreadable\nbusiness numbers' carrier credentials: 0 resealed under key 2026-11, 0 unreadable",
    });
  } finally {
    await prisma.$disconnect();
  }
}, 120_000);

test('a sealed secret does not open under another purpose or when altered, and its key list is checked at boot', () => {
  const box = boxOf(OLD_KEY);
  const sealed = box.seal('whsec_abc', 'webhook-secret');
  expect(box.open(sealed, 'webhook-secret')).toBe('whsec_abc');
  expect(box.seal('whsec_abc', 'webhook-secret')).not.toBe(sealed);
  expect(() => box.open(sealed, 'carrier-credentials')).toThrow('does not authenticate under key id "2026-05"');
  expect(() => box.open(sealed.replace(':2026-05:', ':2026-11:'), 'webhook-secret')).toThrow('unknown key id "2026-11"');
  const [version, id, iv, data] = sealed.split(':');
  const flipped = Buffer.from(data, 'base64').map((byte, i) => (i === 0 ? byte ^ 1 : byte));
  expect(() => box.open([version, id, iv, Buffer.from(flipped).toString('base64')].join(':'), 'webhook-secret')).toThrow('does not authenticate');

  expect(() => loadConfig({ SECRETS_KEY: 'k1:c2hvcnQ=' })).toThrow('Invalid configuration: SECRETS_KEY key "k1" is not 32 bytes of base64');
  expect(() => loadConfig({ SECRETS_KEY: `${OLD_KEY},${OLD_KEY}` })).toThrow('SECRETS_KEY names a key id twice');
  expect(loadConfig({ SECRETS_KEY: `${NEW_KEY}, ${OLD_KEY}` }).secretKeys?.map((k) => k.id)).toEqual(['2026-11', '2026-05']);
});

test('production has no default SECRETS_KEY; elsewhere the data directory keeps one, mode 0600, that every process on it shares', async () => {
  const dataDir = await testDir('secrets-');
  await expect(secretBoxOf(loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir }))).rejects.toThrow('set SECRETS_KEY in production');
  const first = await secretBoxOf(loadConfig({ DATA_DIR: dataDir }));
  const second = await secretBoxOf(loadConfig({ DATA_DIR: dataDir }));
  expect(second.open(first.seal('whsec_abc', 'webhook-secret'), 'webhook-secret')).toBe('whsec_abc');
  const file = dataPaths(dataDir).devSecretsKey;
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await readFile(file, 'utf8')).trim()).toMatch(/^dev-1:[A-Za-z0-9+/]{43}=$/);
  // SECRETS_KEY, when set, is used instead, in any environment.
  expect((await secretBoxOf(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: NEW_KEY }))).currentKeyId).toBe('2026-11');
});
