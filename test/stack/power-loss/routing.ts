import { eventually } from '../../support/stack';
import { callerOf, type PowerLossJourney } from './journey';

/*
 * Issue 31's "Done when": three agents of capacity 2, a client waiting in the queue and a first-response
 * clock running when the machine loses power (kill -9 of the supervisor, the process that runs the API and
 * the worker, PostgreSQL and Temporal), then npm start on the same data.
 */

const BUSINESS = 'routing';
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export function routing(): PowerLossJourney {
  let call: ReturnType<typeof callerOf>;
  let six: { body: { agent: string } }[];
  let seventh: { body: { decision_id: string } };
  let unanswered: { body: { decision_id: string; agent: string } };
  let answered: { body: { decision_id: string; agent: string } };

  return {
    before: 'three agents of capacity 2: six routed at once get two each, and the seventh waits in the queue, with the reasons each agent was passed over',
    after: 'after kill -9 and a restart the waiting client is assigned within 5 s of an unassignment; an unanswered client is reassigned, an answered one is not',

    async setUp(stack) {
      call = callerOf(stack, BUSINESS, 'router');
      for (const _id of ['away', 'night', 'a1', 'a2', 'a3', 'b1', 'b2']) expect((await call('POST', '/agents', { _id })).status).toBe(201);
      for (const _id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'f1', 'f2']) expect((await call('POST', '/clients', { _id })).status).toBe(201);
      expect((await call('PATCH', '/agents/away', { presence: 'away' })).status).toBe(200);
      // A shift that is never now: one minute, three days away.
      const never = WEEKDAYS[(new Date().getUTCDay() + 3) % 7];
      expect((await call('PATCH', '/agents/night', { timezone: 'UTC', working_hours: { [never]: [['03:00', '03:01']] } })).status).toBe(200);
      expect((await call('PUT', '/teams/sales', { members: ['away', 'night', 'a1', 'a2', 'a3'].map((agent) => ({ agent })) })).status).toBe(200);
      expect((await call('PUT', '/routing-policies/sales', { team: 'sales', capacity: 2 })).status).toBe(200);
      expect((await call('PUT', '/teams/reps', { members: [{ agent: 'b1' }, { agent: 'b2' }] })).status).toBe(200);
      expect((await call('PUT', '/routing-policies/fast', { team: 'reps', working_hours: false, first_response_within: 'PT10S', max_reassignments: 1 })).status).toBe(200);

      six = await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((c) => call('POST', `/clients/${c}/route`, { policy: 'sales' })));
      expect(six.map((r: any) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(six.map((r) => r.body.agent).sort()).toEqual(['a1', 'a1', 'a2', 'a2', 'a3', 'a3']);
      const queued = await call('POST', '/clients/c7/route', { policy: 'sales' });
      expect({ status: queued.status, body: queued.body }).toEqual({ status: 202, body: { decision_id: expect.any(String), status: 'queued', position: 1 } });
      seventh = queued;
      const why = (await call('GET', `/routing-decisions/${seventh.body.decision_id}`)).body.candidates;
      expect(why).toEqual([
        { agent: 'away', eligible: false, reasons: ['away'], load: 0, capacity: 2 },
        { agent: 'night', eligible: false, reasons: ['outside_working_hours'], load: 0, capacity: 2 },
        ...['a1', 'a2', 'a3'].map((agent) => ({ agent, eligible: false, reasons: ['at_capacity'], load: 2, capacity: 2 })),
      ]);
    },

    // Two first-response clocks of 10 s, one of them stopped by an answer: the other runs across the power loss.
    async arm() {
      unanswered = await call('POST', '/clients/f1/route', { policy: 'fast' });
      answered = await call('POST', '/clients/f2/route', { policy: 'fast' });
      expect([unanswered.body.agent, answered.body.agent]).toEqual(['b1', 'b2']);
      expect((await call('POST', `/routing-decisions/${answered.body.decision_id}/accept`)).status).toBe(200);
    },

    async check() {
      expect((await call('GET', '/routing-policies/sales/queue')).body.queue).toEqual([{ client: 'c7', position: 1, since: expect.any(String), decision_id: seventh.body.decision_id }]);
      const freed = Date.now();
      expect((await call('DELETE', `/clients/c1/agents/${six[0].body.agent}`)).status).toBe(200);
      await eventually(async () => (await call('GET', '/clients/c7/agents')).body.assignments.length === 1, 5_000, 100);
      expect(Date.now() - freed).toBeLessThan(5_000);
      expect((await call('GET', '/clients/c7/agents')).body.assignments).toEqual([expect.objectContaining({ agent: six[0].body.agent, routed_by: { policy: 'sales', version: 1, decision_id: seventh.body.decision_id } })]);
      expect((await call('GET', '/routing-policies/sales/queue')).body.queue).toEqual([]);
      const loads = await Promise.all(['away', 'night', 'a1', 'a2', 'a3'].map(async (a) => (await call('GET', `/agents/${a}`)).body.load));
      expect(loads).toEqual([0, 0, 2, 2, 2]);

      // The clock of the unanswered client ran across the crash: it goes to the other member; the answered one stays.
      await eventually(async () => (await call('GET', `/routing-decisions/${unanswered.body.decision_id}`)).body.reassignments === 1, 60_000, 250);
      expect((await call('GET', '/clients/f1/agents')).body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['b2']);
      const kept = (await call('GET', `/routing-decisions/${answered.body.decision_id}`)).body;
      expect(kept).toMatchObject({ agent: 'b2', reassignments: 0, answered_at: expect.any(String), escalated_at: null });
      expect((await call('GET', '/clients/f2/agents')).body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['b2']);
    },
  };
}
