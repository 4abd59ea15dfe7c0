import { request } from '../../support/process';
import type { SharedNpmStart } from '../../support/shared-npm-start';
import { eventually } from '../../support/stack';

/* The walkthrough: `npm start` with its default carrier, the simulator, and a person texting in with `npm run sms`. */

const BUSINESS = 'walkthrough';
const PHONE = '+14155550110';

export function simulatorWalkthrough(shared: () => SharedNpmStart): void {
  test.concurrent('npm start sends through the simulator by default: receipts deliver, a magic number fails, npm run sms replies to the agent and opts out', async () => {
    const { stack, origin, tokenOf, run } = shared();
    const api = `${origin}/ext/v2/${BUSINESS}`;
    expect(stack.output()).toMatch(/Provider {5}simulator \(Twilio-shaped at http:\/\/127\.0\.0\.1:\d+, sending from \+15005550006; receipts to http:\/\/127\.0\.0\.1:\d+\/providers\/simulator\/…\)/);
    expect(stack.output()).toContain('Text in      npm run sms -- +14155550100 "STOP"');
    const token = tokenOf('user-1');
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', phone: PHONE })).status).toBe(201);

    const hello = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hello' });
    const delivered = await eventually(async () => {
      const message = (await request(`${api}/messages/${hello.body._id}`, token)).body;
      return message.status === 'delivered' && message;
    });
    expect(delivered).toMatchObject({ provider: 'simulator', provider_ref: expect.stringMatching(/^SM[0-9a-f]{32}$/), price: { amount: '0.00790', unit: 'USD' } });

    const invalid = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client_phone: '+15005550001', text_message: 'Hello' });
    const failed = await eventually(async () => {
      const message = (await request(`${api}/messages/${invalid.body._id}`, token)).body;
      return message.status === 'failed' && message;
    });
    expect(failed.error).toBe('The recipient number is not a valid phone number (simulator error 21211)');

    // A reply reaches the agent's event; STOP refuses the next message and suppresses a scheduled one.
    expect((await request(`${api}/agents`, token, 'POST', { _id: 'a1' })).status).toBe(201);
    expect((await request(`${api}/clients/c1/assign-agents`, token, 'POST', { agents: [{ agent: 'a1', dt_until: '2099-01-01' }] })).status).toBe(200);
    const sms = (text: string) => run('scripts/sms.ts', [PHONE, text]);
    expect(await sms('Yes, 3pm works')).toMatch(/^\+14155550110 texted \+15005550006: "Yes, 3pm works" \(SM[0-9a-f]{32}\); the stack answered 200 at http:\/\/127\.0\.0\.1:\d+\/providers\/simulator\/inbound/);
    const received = (await request(`${api}/events?type=message.received&client=c1`, token)).body.events;
    expect(received.map((event: any) => [event.data.text_message, event.data.assignments])).toEqual([['Yes, 3pm works', [{ agent: 'a1', dt_until: '2099-01-01T00:00:00.000Z', rotation: false, current_period: false }]]]);

    const scheduled = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Reminder: 3pm', delay: '9s' });
    expect(await sms('STOP')).toContain('the stack answered 200');
    const refused = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hello again' });
    expect({ status: refused.status, detail: refused.body.detail }).toEqual({ status: 409, detail: 'Recipient has opted out of text messages' });
    await eventually(async () => (await request(`${api}/messages/${scheduled.body._id}`, token)).body.status === 'suppressed', 60_000);
  }, 240_000);
}
