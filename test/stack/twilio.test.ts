import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio';
import { runStack, stackEnv } from '../support/npm-start';
import { request } from '../support/process';
import { eventually } from '../support/stack';

/* `npm start` sending through Twilio (a Twilio-compatible fake at TWILIO_API_URL), and Twilio's signed callbacks coming back. */

let fake: FakeTwilio;
beforeAll(async () => {
  fake = await startFakeTwilio();
});
afterAll(() => fake.stop());

test('MESSAGE_PROVIDER=twilio: npm start sends as Twilio documents; signed callbacks deliver, reply (naming the assignments) and opt out; unsigned ones are 403s that change nothing', async () => {
  const { dataDir, env, api } = await stackEnv('crm-twilio');
  const publicBaseUrl = `http://127.0.0.1:${env.PORT}`;
  const stack = runStack({
    ...env,
    MESSAGE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_FROM: fake.from,
    TWILIO_API_URL: fake.url,
    PUBLIC_BASE_URL: publicBaseUrl,
  });
  try {
    await stack.ready;
    expect(stack.output()).toContain('Provider     twilio');
    const secret = (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim();
    const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', phone: '+14155550100' })).status).toBe(201);

    const accepted = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Your order has shipped' });
    expect(accepted.status).toBe(202);
    const id = accepted.body._id as string;
    const sent = await eventually(async () => {
      const message = (await request(`${api}/messages/${id}`, token)).body;
      return message.status === 'sent' && message;
    });
    const copy = fake.api.sentTo('+14155550100')[0];
    expect(sent).toMatchObject({ provider: 'twilio', provider_ref: copy.sid });
    const sendRequest = fake.api.requests.find((received) => received.method === 'POST' && received.params.Body === 'Your order has shipped')!;
    expect(sendRequest.path).toBe(`/2010-04-01/Accounts/${fake.accountSid}/Messages.json`);
    expect(sendRequest.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`);
    expect(sendRequest.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(sendRequest.params).toEqual({ To: '+14155550100', From: fake.from, Body: 'Your order has shipped', StatusCallback: `${publicBaseUrl}/providers/twilio/status/${id}` });

    // Unsigned, or signed with another account's token: 403, and the message stays sent.
    expect((await fake.api.postStatus(copy.sid, 'delivered', { authToken: null })).status).toBe(403);
    expect((await fake.api.postStatus(copy.sid, 'delivered', { authToken: 'another-accounts-token' })).status).toBe(403);
    expect((await request(`${api}/messages/${id}`, token)).body.status).toBe('sent');

    const answered = await fake.api.postStatus(copy.sid, 'delivered', { price: { amount: '-0.00790', unit: 'USD' } });
    expect(answered.status).toBe(200);
    const delivered = (await request(`${api}/messages/${id}`, token)).body;
    expect(delivered).toMatchObject({ status: 'delivered', delivered_at: expect.any(String), price: { amount: '0.00790', unit: 'USD' }, error_code: null });

    // A reply reaches whoever owns the client: message.received names the client's assignments in force.
    expect((await request(`${api}/agents`, token, 'POST', { _id: 'a1' })).status).toBe(201);
    expect((await request(`${api}/clients/c1/assign-agents`, token, 'POST', { agents: [{ agent: 'a1', dt_until: '2099-01-01' }] })).status).toBe(200);
    const inboundUrl = `${publicBaseUrl}/providers/twilio/inbound`;
    expect((await fake.api.postInbound(inboundUrl, { from: '+14155550100', to: fake.from, body: 'Can we make it 4pm?' }, null)).status).toBe(403);
    expect((await fake.api.postInbound(inboundUrl, { from: '+14155550100', to: fake.from, body: 'Can we make it 4pm?' })).status).toBe(200);
    const received = (await request(`${api}/events?type=message.received&client=c1`, token)).body.events;
    expect(received).toHaveLength(1);
    expect(received[0].data).toMatchObject({ direction: 'inbound', status: 'received', client: 'c1', text_message: 'Can we make it 4pm?', provider: 'twilio' });
    expect(received[0].data.assignments).toEqual([{ agent: 'a1', dt_until: '2099-01-01T00:00:00.000Z', rotation: false, current_period: false }]);

    // STOP: the number is opted out; the next message is refused, one scheduled before ends suppressed.
    const scheduled = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Reminder: tomorrow at 4', delay: '8s' });
    expect(scheduled.status).toBe(202);
    expect((await fake.api.postInbound(inboundUrl, { from: '+14155550100', to: fake.from, body: 'STOP' })).status).toBe(200);
    await eventually(async () => fake.api.requests.some((received) => received.method === 'POST' && received.params.To === '+14155550100' && /unsubscribed/.test(received.params.Body ?? '')));
    const refused = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'One more thing' });
    expect({ status: refused.status, detail: refused.body.detail }).toEqual({ status: 409, detail: 'Recipient has opted out of text messages' });
    const suppressed = await eventually(async () => {
      const message = (await request(`${api}/messages/${scheduled.body._id}`, token)).body;
      return message.status === 'suppressed' && message;
    }, 60_000);
    expect(suppressed).toMatchObject({ suppressed_reason: 'Recipient has opted out of text messages', sent_at: null });
    expect(fake.api.sentTo('+14155550100').map((message) => message.body)).not.toContain('Reminder: tomorrow at 4');
  } finally {
    expect(await stack.stop()).toBe(0);
  }
}, 240_000);
