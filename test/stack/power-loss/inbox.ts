import { eventually } from '../../support/stack';
import { callerOf, type PowerLossJourney, type PowerLossStack } from './journey';

/*
 * The inbox with the simulator, from outside: clients text in with `npm run sms`, the conversations list
 * shows who waits longest, answers, snoozes, reply clocks, read horizons and notes behave as the API says,
 * and a snooze running at the power loss still ends, at its date or once the stack is back.
 */

const BUSINESS = 'inbox';
const PHONES: Record<string, string> = { c1: '+14155550131', c2: '+14155550132' };

export function inbox(): PowerLossJourney {
  let stack: PowerLossStack;
  let call: ReturnType<typeof callerOf>;
  let c1: { _id: string };
  let later: string;
  const sms = (phone: string, text: string) => stack.run('scripts/sms.ts', [phone, text]);
  const conversationOf = async (client: string) => (await call('GET', `/conversations?client=${client}`)).body.conversations[0];
  const overdue = async () => (await call('GET', '/events?type=conversation.overdue&limit=100')).body.events;

  return {
    before: 'npm start: two clients text in, the inbox orders them, answers, snoozes, reports overdue once, counts unread per agent, and never sends a note',
    after: 'npm start: a snooze running at the power loss ends after kill -9, and the client waiting past its reply clock is still reported overdue once',

    async setUp(shared) {
      stack = shared;
      call = callerOf(stack, BUSINESS, 'inbox-user');
      const stranger = stack.tokenOf('someone-else');
      for (const agent of ['a1', 'a2']) expect((await call('POST', '/agents', { _id: agent })).status).toBe(201);
      expect((await call('PUT', '/teams/desk', { members: [{ agent: 'a1' }] })).status).toBe(200);
      expect((await call('PUT', '/routing-policies/desk', { team: 'desk', working_hours: false, next_response_within: 'PT10S' })).status).toBe(200);
      for (const [client, phone] of Object.entries(PHONES)) {
        expect((await call('POST', '/clients', { _id: client, phone })).status).toBe(201);
        expect((await call('POST', `/clients/${client}/route`, { policy: 'desk' })).body.status).toBe('assigned');
        const hello = await call('POST', '/messages', { message_type: 'text', client, text_message: 'Hello from the desk' });
        await eventually(async () => (await call('GET', `/messages/${hello.body._id}`)).body.status === 'delivered', 30_000);
      }

      // Two clients text in: the waiting list, oldest first.
      await sms(PHONES.c1, 'Is the offer still on?');
      await sms(PHONES.c2, 'Please call me');
      expect((await call('GET', '/conversations?waiting=true')).body.conversations.map((c: any) => c.client)).toEqual(['c1', 'c2']);
      c1 = await conversationOf('c1');
      const c2 = await conversationOf('c2');

      // Read horizons: a1 reads c1's text, a2 has read nothing.
      const [text] = (await call('GET', `/conversations/${c1._id}/messages`)).body.messages;
      expect(text.direction).toBe('inbound');
      expect((await call('POST', `/conversations/${c1._id}/read`, { agent: 'a1', message: text._id })).body.unread).toBe(0);
      expect((await call('GET', `/conversations/${c1._id}?agent=a2`)).body.unread).toBe(1);

      // A note is never sent; another user sees none of it.
      expect((await call('POST', `/conversations/${c1._id}/notes`, { agent: 'a1', text: 'Wants the premium plan' })).status).toBe(201);
      expect((await call('GET', '/messages?limit=100')).body.messages.map((m: any) => m.text_message)).not.toContain('Wants the premium plan');
      expect((await call('GET', `/conversations/${c1._id}`, undefined, stranger)).status).toBe(404);
      expect((await call('GET', '/conversations', undefined, stranger)).body.conversations).toEqual([]);

      // An answer clears c1; c2 stays waiting past next_response_within and is reported overdue, once.
      expect((await call('POST', '/messages', { message_type: 'text', client: 'c1', text_message: 'Yes, until Friday' })).status).toBe(202);
      expect((await call('GET', '/conversations?waiting=true')).body.conversations.map((c: any) => c.client)).toEqual(['c2']);
      await eventually(async () => (await overdue()).length === 1, 30_000, 250);
      expect((await overdue())[0].data).toMatchObject({ _id: c2._id, client: 'c2', assignees: ['a1'], reason: 'reply_clock' });

      // A snooze of a few seconds opens c1 by itself; a text during c2's snooze opens it at once.
      const soon = new Date(Date.now() + 4000).toISOString();
      expect((await call('POST', `/conversations/${c1._id}/snooze`, { until: soon })).body.status).toBe('snoozed');
      expect((await call('POST', `/conversations/${c2._id}/snooze`, { until: new Date(Date.now() + 3600_000).toISOString() })).body.status).toBe('snoozed');
      await sms(PHONES.c2, 'Actually, now please');
      expect((await conversationOf('c2')).status).toBe('open');
      await eventually(async () => (await conversationOf('c1')).status === 'open', 30_000, 250);
    },

    async arm() {
      later = new Date(Date.now() + 8_000).toISOString();
      expect((await call('POST', `/conversations/${c1._id}/snooze`, { until: later })).body.status).toBe('snoozed');
    },

    // On the same data the snooze still ends, at its date or, when the restart takes longer than the snooze (a
    // loaded machine), once the stack is back.
    async check() {
      await eventually(async () => (await conversationOf('c1')).status === 'open', 60_000, 250);
      const reopened = (await call('GET', '/events?type=conversation.reopened&client=c1&limit=100')).body.events;
      expect(reopened.map((e: any) => e.data.reason)).toEqual(['snooze', 'snooze']);
      expect(Date.parse(reopened[1].created_at)).toBeGreaterThanOrEqual(Date.parse(later));
      // c2 still waits in the same period (its later text did not start another): still reported once.
      expect(await overdue()).toHaveLength(1);
    },
  };
}
