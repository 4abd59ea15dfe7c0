import { randomBytes } from 'node:crypto';
import { type CarrierCallback, CarrierRejected, createCarrier } from '../../src/carriers';
import { type RunningSimulator, simulatorSettings, startSimulator } from '../../src/stack/simulator';
import { loadConfig, loadStackConfig } from '../../src/config/index';
import { eventually } from '../support/helpers';
import { startCallbackCatcher, type CapturedCallback } from '../support/fake-twilio';

/* The simulator npm start runs: the Twilio carrier sends to it, it posts receipts signed as Twilio signs, and lets a person text in. */

let catcher: Awaited<ReturnType<typeof startCallbackCatcher>>;
let simulator: RunningSimulator;
const authToken = randomBytes(16).toString('hex');
const errors: unknown[] = [];
beforeAll(async () => {
  catcher = await startCallbackCatcher();
  simulator = await startSimulator({ authToken, publicBaseUrl: catcher.base, receiptDelayMs: 10, onCallbackError: (error) => errors.push(error) });
});
afterAll(async () => {
  await simulator.stop();
  await catcher.stop();
});

const carrier = () => createCarrier(loadConfig({ MESSAGE_PROVIDER: 'simulator', PUBLIC_BASE_URL: catcher.base, ...simulatorSettings(simulator, authToken) }))!;
const callbackOf = (captured: CapturedCallback, messageId?: string): CarrierCallback => ({ url: captured.url, headers: captured.headers as Record<string, string>, rawBody: captured.rawBody, messageId });
const callbacksTo = (url: string) => catcher.received.filter((captured) => captured.url === url);

test('a send comes back as signed receipts a moment later: sent, then delivered with its price', async () => {
  const simulated = carrier();
  expect({ name: simulated.name, sender: simulated.sender }).toEqual({ name: 'simulator', sender: '+15005550006' });
  const statusCallbackUrl = `${catcher.base}/providers/simulator/status/m-1`;
  const { providerRef } = await simulated.send({ id: 'm-1', to: '+14155550100', text: 'Hello', statusCallbackUrl, dispatchedAt: new Date(), channel: 'sms', media: [] });
  await eventually(async () => callbacksTo(statusCallbackUrl).length === 2);
  const receipts = callbacksTo(statusCallbackUrl).map((captured) => callbackOf(captured, 'm-1'));
  for (const receipt of receipts) expect(await simulated.verify(receipt)).toBe(true);
  expect(receipts.map((receipt) => simulated.parseReceipt(receipt))).toEqual([
    // The number it went out from, so that a receipt moves only a message sent from that number.
    { providerRef, messageId: 'm-1', status: 'sent', sender: '+15005550006' },
    { providerRef, messageId: 'm-1', status: 'delivered', price: { amount: '0.00790', unit: 'USD' }, sender: '+15005550006' },
  ]);
  expect(errors).toEqual([]);
});

test("Twilio's magic numbers are refused at once; the simulator's +1500555003X are accepted and come back undelivered with error 3000X", async () => {
  const simulated = carrier();
  await expect(simulated.send({ id: 'm-2', to: '+15005550001', text: 'Hi', statusCallbackUrl: `${catcher.base}/providers/simulator/status/m-2`, dispatchedAt: new Date(), channel: 'sms', media: [] })).rejects.toEqual(
    new CarrierRejected('21211', 'The recipient number is not a valid phone number'),
  );
  const statusCallbackUrl = `${catcher.base}/providers/simulator/status/m-3`;
  await simulated.send({ id: 'm-3', to: '+15005550037', text: 'Hi', statusCallbackUrl, dispatchedAt: new Date(), channel: 'sms', media: [] });
  await eventually(async () => callbacksTo(statusCallbackUrl).length === 2);
  expect(simulated.parseReceipt(callbackOf(callbacksTo(statusCallbackUrl)[1], 'm-3'))).toMatchObject({ status: 'undelivered', errorCode: '30007' });
});

test("a person's text (npm run sms) reaches the inbound route signed; the simulator's door wants its account's credentials", async () => {
  const text = (authorization: string) =>
    fetch(`${simulator.url}/simulator/sms`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550100', text: 'STOP' }) });
  expect((await text(`Basic ${Buffer.from(`${simulator.accountSid}:wrong`).toString('base64')}`)).status).toBe(401);
  const answered = await text(`Basic ${Buffer.from(`${simulator.accountSid}:${authToken}`).toString('base64')}`);
  expect(answered.status).toBe(200);
  expect(await answered.json()).toMatchObject({ to: '+15005550006', url: `${catcher.base}/providers/simulator/inbound`, answer: 200 });
  const inbound = callbackOf(catcher.received.at(-1)!);
  expect(await carrier().verify(inbound)).toBe(true);
  expect(carrier().parseInbound(inbound)).toMatchObject({ from: '+14155550100', to: '+15005550006', text: 'STOP' });
});

test('npm start sends through the simulator unless MESSAGE_PROVIDER says otherwise; production has no simulator', () => {
  expect(loadStackConfig({}).MESSAGE_PROVIDER).toBe('simulator');
  expect(loadStackConfig({ MESSAGE_PROVIDER: 'log' }).MESSAGE_PROVIDER).toBe('log');
  expect(loadStackConfig({ NODE_ENV: 'production' }).MESSAGE_PROVIDER).toBe('log');
  expect(() => loadStackConfig({ NODE_ENV: 'production', MESSAGE_PROVIDER: 'simulator' })).toThrow('MESSAGE_PROVIDER=simulator is for development');
  expect(loadConfig({}).MESSAGE_PROVIDER).toBe('log');
  expect(() => createCarrier(loadConfig({ MESSAGE_PROVIDER: 'simulator' }))).toThrow('MESSAGE_PROVIDER=simulator runs inside npm start');
});

test('its numbers are in an approved 10DLC campaign until a test or an operator sets one otherwise (POST /simulator/registration, the account\'s credentials)', async () => {
  const simulated = carrier();
  const number = '+15005550003';
  expect(await simulated.readRegistration!(number)).toMatchObject({ kind: '10dlc', brand: { status: 'approved' }, campaign: { status: 'approved', useCase: 'CUSTOMER_CARE' } });
  const set = (body: unknown, token = authToken) =>
    fetch(`${simulator.url}/simulator/registration`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${simulator.accountSid}:${token}`).toString('base64')}` },
      body: JSON.stringify(body),
    });
  for (const status of ['pending', 'unregistered', 'approved'] as const) {
    const answer = await set({ number, status });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ number, status });
    const read = await simulated.readRegistration!(number);
    expect(read.campaign?.status ?? 'unregistered').toBe(status);
  }
  expect((await set({ number, status: 'maybe' })).status).toBe(400);
  expect((await set({ number: '4155550100', status: 'pending' })).status).toBe(400);
  expect((await set({ number, status: 'pending' }, 'wrong')).status).toBe(401);
});
