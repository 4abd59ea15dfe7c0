import { request } from '../../support/process';
import type { SharedNpmStart } from '../../support/shared-npm-start';
import { eventually } from '../../support/stack';

/*
 * The walkthrough of each business its own numbers, on `npm start` with the simulator: acme and globex
 * both text one phone from the shared sender, and its reply reaches neither; then each registers a
 * number (`npm run number`), both text the phone again, the phone answers each number (`npm run sms --
 * --to`), and each business sees only the reply to its own number; a STOP to acme's number leaves globex
 * free to text the phone.
 */
const PHONE = '+14155550100';

export function businessNumbers(shared: () => SharedNpmStart): void {
  test.concurrent('npm start: acme and globex each get a number; the phone\'s reply to each lands in that business only, STOP to acme leaves globex free; on the shared sender a reply both could own reaches neither', async () => {
    const { stack, origin, tokenOf, run } = shared();
    expect(stack.output()).toContain('Numbers      npm run number -- <business> <+E.164>');
    const businesses = { acme: tokenOf('user-x'), globex: tokenOf('user-y') };
    const at = (business: keyof typeof businesses, path: string, method = 'GET', body?: unknown) => request(`${origin}/ext/v2/${business}${path}`, businesses[business], method, body);
    const send = async (business: keyof typeof businesses, text: string) => {
      const accepted = await at(business, '/messages', 'POST', { message_type: 'text', client: 'c1', text_message: text });
      expect(accepted.status).toBe(202);
      return eventually(async () => {
        const message = (await at(business, `/messages/${accepted.body._id}`)).body;
        return message.status === 'delivered' && message;
      });
    };
    const replies = async (business: keyof typeof businesses) =>
      (await at(business, '/clients/c1/messages')).body.messages.filter((m: any) => m.direction === 'inbound').map((m: any) => m.text_message);
    const receivedEvents = async (business: keyof typeof businesses) =>
      (await at(business, '/events?type=message.received')).body.events.map((e: any) => e.data.text_message);
    for (const business of ['acme', 'globex'] as const) expect((await at(business, '/clients', 'POST', { _id: 'c1', phone: PHONE })).status).toBe(201);

    // No numbers yet: both text the phone from the shared sender; its reply could be either's, so it reaches neither.
    expect((await send('acme', 'Acme: your order shipped')).from).toBe('+15005550006');
    expect((await send('globex', 'Globex: your invoice is ready')).from).toBe('+15005550006');
    expect(await run('scripts/sms.ts', [PHONE, 'Who is this?'])).toContain('the stack answered 200');
    expect(await replies('acme')).toEqual([]);
    expect(await replies('globex')).toEqual([]);

    // Each business gets a number of its own.
    expect(await run('src/main/number.ts', ['acme', '+15005550001'])).toContain('+15005550001 is acme\'s');
    expect(await run('src/main/number.ts', ['globex', '+15005550002'])).toContain('+15005550002 is globex\'s');
    expect((await send('acme', 'Acme: delivery tomorrow')).from).toBe('+15005550001');
    expect((await send('globex', 'Globex: payment received')).from).toBe('+15005550002');

    expect(await run('scripts/sms.ts', ['--to', '+15005550001', PHONE, 'Thanks Acme'])).toMatch(/^\+14155550100 texted \+15005550001: "Thanks Acme"/);
    expect(await run('scripts/sms.ts', ['--to', '+15005550002', PHONE, 'Thanks Globex'])).toContain('the stack answered 200');
    expect(await replies('acme')).toEqual(['Thanks Acme']);
    expect(await replies('globex')).toEqual(['Thanks Globex']);
    expect(await receivedEvents('acme')).toEqual(['Thanks Acme']);
    expect(await receivedEvents('globex')).toEqual(['Thanks Globex']);

    // STOP to acme's number: acme may not text the phone, globex still may.
    expect(await run('scripts/sms.ts', ['--to', '+15005550001', PHONE, 'STOP'])).toContain('the stack answered 200');
    const refused = await at('acme', '/messages', 'POST', { message_type: 'text', client: 'c1', text_message: 'One more offer' });
    expect({ status: refused.status, detail: refused.body.detail }).toEqual({ status: 409, detail: 'Recipient has opted out of text messages' });
    expect((await send('globex', 'Globex: receipt attached')).from).toBe('+15005550002');
  }, 240_000);
}
