import { loadConfig } from '../../../src/config/index';
import { refuseConnectorsWithoutPublicBaseUrl } from '../../../src/main/services';
import { request } from '../../support/http';
import { originOf, startStackFor, uniqueName, type TestStack } from '../../support/stack';

/*
 * In production the inbound URLs never come from the Host header: a carrier without PUBLIC_BASE_URL
 * does not start, a connector's PUT or GET is a 503 that says what to set, and the API does not start
 * once a connector exists.
 */

let stack: TestStack;
let token: string;

beforeAll(async () => {
  ({ stack, token } = await startStackFor(uniqueName('user')));
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const HUBSPOT = { agents: ['a1'], settings: { client_secret: 's', access_token: 'pat-na1-x' } };

test('production without PUBLIC_BASE_URL: a connector\'s PUT and GET are 503s that say what to set, whatever the Host header, and nothing is stored', async () => {
  const production = await stack.startApi({ production: true, publicBaseUrl: undefined });
  const url = `${originOf(production)}/ext/v2/${stack.business}/integrations/hubspot`;
  for (const [method, body] of [['PUT', HUBSPOT], ['GET', undefined]] as const) {
    const answer = await request(method, url, { token, body, headers: { host: 'evil.example' } });
    expect(answer.status).toBe(503);
    expect(answer.body.detail).toBe('PUBLIC_BASE_URL is not set: in production a CRM connector needs the public address the CRMs post to (docs/integrations.md)');
  }
  expect(await stack.prisma.crmConnector.count({ where: { business: stack.business } })).toBe(0);

  // With it, the inbound URL is built from it, never from the Host header.
  const configured = await stack.startApi({ production: true, publicBaseUrl: 'https://crm.example.com' });
  const put = await request('PUT', `${originOf(configured)}/ext/v2/${stack.business}/integrations/hubspot`, { token, body: HUBSPOT, headers: { host: 'evil.example' } });
  expect(put.status).toBe(201);
  expect(put.body.inbound_url).toBe(`https://crm.example.com/integrations/hubspot/${stack.business}/webhook`);
});

test('production\'s API does not start without PUBLIC_BASE_URL once a connector exists; outside production, or with it, it does', async () => {
  const production = loadConfig({ NODE_ENV: 'production' });
  // The run's database is shared: this file's business makes sure one exists.
  expect([200, 201]).toContain((await stack.api('PUT', '/integrations/hubspot', { token, body: HUBSPOT })).status);
  await expect(refuseConnectorsWithoutPublicBaseUrl({ config: production, prisma: stack.prisma })).rejects.toThrow(
    /^Invalid configuration: PUBLIC_BASE_URL is required in production once a CRM connector exists \(\d+ do\): the public address the CRMs post to/,
  );
  await expect(refuseConnectorsWithoutPublicBaseUrl({ config: { ...production, PUBLIC_BASE_URL: 'https://crm.example.com' }, prisma: stack.prisma })).resolves.toBeUndefined();
  await expect(refuseConnectorsWithoutPublicBaseUrl({ config: loadConfig({}), prisma: stack.prisma })).resolves.toBeUndefined();
});

test('a carrier configured without PUBLIC_BASE_URL does not start', () => {
  expect(() => loadConfig({ NODE_ENV: 'production', MESSAGE_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+15550001000' })).toThrow(
    'Invalid configuration: MESSAGE_PROVIDER=twilio needs PUBLIC_BASE_URL',
  );
  expect(() => loadConfig({ NODE_ENV: 'production', MESSAGE_PROVIDER: 'telnyx', TELNYX_API_KEY: 'k', TELNYX_FROM: '+15550001000', TELNYX_PUBLIC_KEY: 'x' })).toThrow(/needs PUBLIC_BASE_URL/);
  expect(() => loadConfig({ NODE_ENV: 'production', MESSAGE_PROVIDER: 'vonage', VONAGE_API_KEY: 'k', VONAGE_API_SECRET: 's', VONAGE_FROM: '1555', VONAGE_SIGNATURE_SECRET: 's' })).toThrow(/needs PUBLIC_BASE_URL/);
});
