import { Worker } from '@temporalio/worker';
import { eventually } from '../../support/helpers';
import { startFakeHubspot, type FakeHubspot } from '../../../src/stack/crm-fakes/hubspot';
import { connectedStack } from '../../support/crm';
import type { TestStack } from '../../support/stack';

/*
 * A lead's run takes its database steps as local activities: only the CRM's own calls (reading the
 * contact, writing the owner) are activity tasks on the server.
 */

let stack: TestStack;
let hubspot: FakeHubspot;
let inboundUrl: string;
const bundle = () => ({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } });

beforeAll(async () => {
  hubspot = await startFakeHubspot();
  ({ stack, inboundUrl } = await connectedStack('hubspot', {
    env: { HUBSPOT_API_URL: hubspot.url },
    agents: ['a1', 'a2'],
    before: async (stack, token) => {
      expect((await stack.api('PUT', '/teams/sales', { token, body: { name: 'Sales', members: [{ agent: 'a1' }, { agent: 'a2' }] } })).status).toBe(200);
      expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', working_hours: false } })).status).toBe(200);
    },
    body: { policy: 'sales', settings: { client_secret: hubspot.clientSecret, access_token: hubspot.accessToken }, agent_map: { '501': 'a1', '777': 'a2' } },
  }));
  hubspot.subscribe(inboundUrl);
});
afterAll(async () => {
  await stack?.stop();
  await hubspot?.stop();
});

test('a routed lead\'s run schedules only the CRM\'s calls as activity tasks, and its history replays', async () => {
  const id = 41_000 + Math.floor(Math.random() * 1000);
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: 'Lead', phone: '+14155550142' })])).toBe(200);
  await eventually(async () => hubspot.writes.some((w) => w.id === String(id) && w.status === 200) || undefined, 30_000);
  // The lead's first run: HubSpot's echo of the written owner may already have started a second one under the same id.
  const workflowId = `crm-lead/${stack.business}/hubspot/${id}`;
  const firstRun = await eventually(async () => {
    const runs = [];
    for await (const run of stack.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run);
    const first = runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime())[0];
    return first?.status.name === 'COMPLETED' ? first.runId : undefined;
  }, 30_000);
  const handle = stack.temporal.workflow.getHandle(workflowId, firstRun);
  const history = await handle.fetchHistory();
  const tasks = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
  expect(tasks).toEqual(['syncLeadClient', 'writeLeadOwner']);
  // HubSpot's echo of the written owner is handled in the same way, by a local step.
  await eventually(async () => ((await stack.prisma.crmInboundEvent.findFirst({ where: { business: stack.business, crm: 'hubspot', recordId: String(id), kind: 'owner_changed' } }))?.outcome === 'echo') || undefined, 30_000);
  const event = await stack.prisma.crmInboundEvent.findFirst({ where: { business: stack.business, crm: 'hubspot', recordId: String(id), kind: 'created' } });
  expect(event?.outcome).toBe('routed');
  await Worker.runReplayHistory(bundle(), history, handle.workflowId);
});
