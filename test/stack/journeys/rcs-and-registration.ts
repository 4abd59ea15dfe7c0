import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from '../../support/process';
import type { SharedNpmStart } from '../../support/shared-npm-start';
import { eventually } from '../../support/stack';

/*
 * Issue 51 on `npm start` with the simulator, as a developer tries it: a number's A2P registration decides
 * whether it may send (`npm run registration` sets it at the simulator, the operator's refresh reads it);
 * an RCS message goes by RCS to a handset that takes it and by SMS from the same number to one that does
 * not (the simulator's rule: a phone ending in 9 takes no RCS); a suggestion tap lands in the conversation,
 * and STOP on either channel of the pair stops both. Each journey has a business and phones of its own.
 */

async function adminTokenOf(dataDir: string): Promise<string> {
  return (await readFile(join(dataDir, 'dev-admin-token'), 'utf8')).trim();
}

export function registrationJourney(shared: () => SharedNpmStart): void {
  test.concurrent('npm start: an approved number sends; once its 10DLC campaign is pending a send is a 409 naming it and a delayed one fails when due, never handed over; approved again, it sends', async () => {
    const { origin, tokenOf, run, dataDir } = shared();
    const number = '+15005550003';
    const token = tokenOf('registration-user');
    const at = (path: string, method = 'GET', body?: unknown) => request(`${origin}/ext/v2/tenlc${path}`, token, method, body);
    const adminToken = await adminTokenOf(dataDir);
    const refresh = () => request(`${origin}/admin/businesses/tenlc/numbers/${encodeURIComponent(number)}/registration/refresh`, adminToken, 'POST');
    const text = (text_message: string, delay?: string) => at('/messages', 'POST', { message_type: 'text', client: 'c1', text_message, ...(delay && { delay }) });
    const statusOf = (id: string, status: string) =>
      eventually(async () => {
        const message = (await at(`/messages/${id}`)).body;
        return message.status === status && message;
      }, 60_000);

    expect((await at('/clients', 'POST', { _id: 'c1', phone: '+14155550141' })).status).toBe(201);
    expect(await run('src/main/number.ts', ['tenlc', number])).toContain(`${number} is tenlc's`);
    const first = await text('Your appointment is confirmed');
    expect(first.status).toBe(202);
    expect((await statusOf(first.body._id, 'delivered')).from).toBe(number);

    // Accepted while approved, due after the campaign went pending at the carrier and the operator read it.
    const later = await text('See you tomorrow', '8s');
    expect(later.status).toBe(202);
    expect(await run('scripts/registration.ts', [number, 'pending'])).toContain(`${number} is now pending`);
    const reason = `Sender ${number} is not in an approved 10DLC campaign (pending)`;
    const refreshed = await refresh();
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.registration).toMatchObject({ can_send: false, reason });
    const refused = await text('Are you coming?');
    expect({ status: refused.status, detail: refused.body.detail }).toEqual({ status: 409, detail: reason });
    expect(await statusOf(later.body._id, 'failed')).toMatchObject({ error: reason, error_code: 'a2p-registration', provider_ref: null });

    expect(await run('scripts/registration.ts', [number, 'approved'])).toContain(`${number} is now approved`);
    expect((await refresh()).body.registration).toMatchObject({ can_send: true, reason: null });
    const again = await text('Approved again');
    expect(again.status).toBe(202);
    expect((await statusOf(again.body._id, 'delivered')).from).toBe(number);
  }, 240_000);
}

export function rcsJourney(shared: () => SharedNpmStart): void {
  test.concurrent('npm start: RCS to a handset that takes it is delivered and read as RCS, to one that does not delivered as SMS; a suggestion tap reaches the conversation; STOP on RCS stops SMS, and STOP by SMS stops RCS', async () => {
    const { origin, tokenOf, run } = shared();
    const number = '+15005550004';
    const phones = { capable: '+14155550142', incapable: '+14155550149' };
    const token = tokenOf('rcs-user');
    const at = (path: string, method = 'GET', body?: unknown) => request(`${origin}/ext/v2/rcsco${path}`, token, method, body);
    const rcs = (client: string, text_message: string) =>
      at('/messages', 'POST', { message_type: 'text', client, channel: 'rcs', text_message, suggestions: [{ text: 'Yes', postback_data: 'confirm' }, { text: 'Later' }] });
    const settled = (id: string, status: string) =>
      eventually(async () => {
        const message = (await at(`/messages/${id}`)).body;
        return message.status === status && message;
      }, 60_000);

    for (const [client, phone] of Object.entries(phones)) expect((await at('/clients', 'POST', { _id: client, phone })).status).toBe(201);
    expect((await rcs('capable', 'Before any RCS sender')).status).toBe(409);
    expect(await run('src/main/number.ts', ['rcsco', number, '--rcs'])).toContain(`${number} is rcsco's`);

    const toCapable = await rcs('capable', 'Can we confirm Friday?');
    expect(toCapable.status).toBe(202);
    expect(await settled(toCapable.body._id, 'read')).toMatchObject({ channel: 'rcs', delivered_channel: 'rcs', from: number });
    const toIncapable = await rcs('incapable', 'Can we confirm Monday?');
    expect(toIncapable.status).toBe(202);
    expect(await settled(toIncapable.body._id, 'delivered')).toMatchObject({ channel: 'rcs', delivered_channel: 'sms', from: number });

    // The capable client taps "Yes": an inbound RCS message in the conversation of the number.
    expect(await run('scripts/sms.ts', ['--rcs', '--to', number, '--tap', 'Yes', phones.capable])).toContain('the stack answered 200');
    const inbound = await eventually(async () => (await at('/clients/capable/messages?direction=inbound')).body.messages[0]);
    expect(inbound).toMatchObject({ channel: 'rcs', text_message: 'Yes', suggestions: [{ text: 'Yes', postback_data: 'confirm' }] });
    const conversation = (await at(`/messages/${toCapable.body._id}`)).body.conversation;
    expect(inbound.conversation).toBe(conversation);

    // STOP on RCS: neither RCS nor SMS may go to that client; STOP by SMS from the other stops its RCS too.
    expect(await run('scripts/sms.ts', ['--rcs', '--to', number, phones.capable, 'STOP'])).toContain('the stack answered 200');
    for (const body of [{ channel: 'rcs' }, {}]) {
      const refused = await at('/messages', 'POST', { message_type: 'text', client: 'capable', text_message: 'Still there?', ...body });
      expect(refused.status).toBe(409);
    }
    expect(await run('scripts/sms.ts', ['--to', number, phones.incapable, 'STOP'])).toContain('the stack answered 200');
    expect((await rcs('incapable', 'One more?')).status).toBe(409);
  }, 240_000);
}
