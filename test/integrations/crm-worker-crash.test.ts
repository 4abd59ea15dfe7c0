import { hubspotSuite } from '../support/crm';
import { eventually } from '../support/helpers';
import { startWorkerProcess } from '../support/worker-process';

/*
 * kill -9 of the worker process between HubSpot's acknowledged webhook and the owner's write-back: the
 * write had reached HubSpot, its answer never came back. Another worker takes the lead over and HubSpot
 * still sees exactly one write of the owner.
 */

// Only the worker processes below run this suite's workflows.
const suite = hubspotSuite({ after: ({ stack }) => stack.stopWorker() });

const workerProcess = () => startWorkerProcess(suite.stack, { SECRETS_KEY: suite.stack.services.config.SECRETS_KEY!, HUBSPOT_API_URL: suite.hubspot.url });

test('kill -9 of the worker while the owner\'s write is in flight: another worker finishes the lead and HubSpot sees one write', async () => {
  const id = 90_000 + Math.floor(Math.random() * 1000);
  const writesOf = () => suite.hubspot.writes.filter((w) => w.id === String(id));
  const first = await workerProcess();
  suite.hubspot.holdAnswers(true);
  expect(await suite.hubspot.deliver(suite.inboundUrl, [suite.hubspot.createContact(id, { firstname: 'Ada', phone: '+14155550170' })])).toBe(200);
  await eventually(async () => writesOf().length === 1 || undefined, 60_000, 50);
  first.child.kill('SIGKILL');
  await first.exited;
  suite.hubspot.holdAnswers(false);
  const lead = () => suite.stack.prisma.crmLead.findFirst({ where: { business: suite.stack.business, crm: 'hubspot', recordId: String(id) } });
  expect((await lead())!.writeStatus).toBe('pending');

  const second = await workerProcess();
  try {
    await eventually(async () => (await lead())?.writeStatus === 'written' || undefined, 90_000);
    await eventually(async () => (await suite.stack.prisma.crmInboundEvent.findMany({ where: { business: suite.stack.business, crm: 'hubspot', recordId: String(id) } })).every((e) => e.processedAt) || undefined, 30_000);
    expect(writesOf()).toEqual([{ id: String(id), owner: '501', status: 200 }]);
    expect(suite.hubspot.contacts.get(String(id))!.hubspot_owner_id).toBe('501');
    const assignments = (await suite.stack.api('GET', `/clients/hubspot:${id}/agents?status=all`, { token: suite.token })).body.assignments;
    expect(assignments.map((a: any) => [a.agent, a.status])).toEqual([['a1', 'active']]);
  } finally {
    await second.stop();
  }
}, 180_000);
