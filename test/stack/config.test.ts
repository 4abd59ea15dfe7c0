import { generateKeyPairSync } from 'node:crypto';
import { cursorKeyOf, loadConfig } from '../../src/config/index';

const secret = 'x'.repeat(32);

test('defaults: port 3000, the log provider, the default namespace', () => {
  const config = loadConfig({ JWT_SECRET: secret });
  expect(config).toMatchObject({ PORT: 3000, MESSAGE_PROVIDER: 'log', TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: 'crm-messaging' });
});

test('rejects a JWT_SECRET shorter than 32 characters', () => {
  expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow('JWT_SECRET must be at least 32 characters');
});

test('accepts a JWT_PUBLIC_KEY written on one line with \\n escapes, and restores its line breaks', () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const config = loadConfig({ JWT_PUBLIC_KEY: pem.replace(/\n/g, '\\n') });
  expect(config.JWT_PUBLIC_KEY).toBe(pem);
});

test('rejects a JWT_PUBLIC_KEY that is not a PEM public key', () => {
  expect(() => loadConfig({ JWT_PUBLIC_KEY: 'not a key' })).toThrow('JWT_PUBLIC_KEY is not a PEM public key');
});

test('the webhook provider needs MESSAGE_WEBHOOK_URL, and it must be a URL', () => {
  expect(() => loadConfig({ MESSAGE_PROVIDER: 'webhook' })).toThrow('MESSAGE_PROVIDER=webhook needs MESSAGE_WEBHOOK_URL');
  expect(() => loadConfig({ MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: 'nope' })).toThrow('Invalid configuration: MESSAGE_WEBHOOK_URL');
});

test('rejects an unknown provider and a port out of range', () => {
  expect(() => loadConfig({ MESSAGE_PROVIDER: 'carrier-pigeon' })).toThrow('Invalid configuration: MESSAGE_PROVIDER');
  expect(() => loadConfig({ PORT: '70000' })).toThrow('Invalid configuration: PORT');
});

test('the feed cursor key comes from CURSOR_SECRET, else from JWT_SECRET; production with neither does not start', () => {
  const other = 'c'.repeat(32);
  expect(cursorKeyOf(loadConfig({ JWT_SECRET: secret }))).toEqual(cursorKeyOf(loadConfig({ JWT_SECRET: secret })));
  expect(cursorKeyOf(loadConfig({ JWT_SECRET: secret, CURSOR_SECRET: other }))).not.toEqual(cursorKeyOf(loadConfig({ JWT_SECRET: secret })));
  // Derived under its own label: the key is not the secret itself.
  expect(cursorKeyOf(loadConfig({ JWT_SECRET: secret }))).not.toEqual(Buffer.from(secret));
  expect(() => loadConfig({ JWT_SECRET: secret, CURSOR_SECRET: 'short' })).toThrow('CURSOR_SECRET must be at least 32 characters');
  const publicKeyOnly = loadConfig({ NODE_ENV: 'production', JWT_PUBLIC_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString() });
  expect(() => cursorKeyOf(publicKeyOnly)).toThrow('set CURSOR_SECRET (or JWT_SECRET)');
  const development = loadConfig({});
  expect(cursorKeyOf(development)).toHaveLength(32);
  expect(cursorKeyOf(development)).toEqual(cursorKeyOf(development));
});

test('CRM_FAKES=1 (npm start\'s local HubSpot, Salesforce and Pipedrive) is refused in production and accepted outside it', () => {
  expect(() => loadConfig({ JWT_SECRET: secret, NODE_ENV: 'production', CRM_FAKES: '1' })).toThrow('Invalid configuration: CRM_FAKES=1 is for development; production talks to the CRMs themselves');
  expect(loadConfig({ JWT_SECRET: secret, CRM_FAKES: '1' }).CRM_FAKES).toBe('1');
  expect(() => loadConfig({ JWT_SECRET: secret, CRM_FAKES: 'yes' })).toThrow('CRM_FAKES');
});
