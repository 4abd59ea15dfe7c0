import type { IncomingMessage, ServerResponse } from 'node:http';
import { logger } from '../../../src/logger';
import { startFakeSalesforce, type FakeSalesforce } from '../../../src/stack/crm-fakes/salesforce';
import { startCountingListener, type CountingListener } from '../../support/counting-listener';
import { eventually, expectProblem } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * A CRM's own error text and code stay out of the answers and the events: a CRM that answers every
 * sweep and every owner write with an error carrying a distinctive code; the API's answers and the
 * business's events say our words and the status, and our log keeps the code for the operator.
 */

const CODE = 'INTERNAL_METADATA_LEAK_abc123';
const OWNER = '005000000000001AAA';

/** Salesforce's, HubSpot's and Pipedrive's REST APIs, where reading a Lead works and everything else is refused with CODE. */
function leakyCrm(req: IncomingMessage, res: ServerResponse) {
  const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const lead = /^\/services\/data\/v[\d.]+\/sobjects\/Lead\/(\w+)/.exec(req.url ?? '');
  if (lead && req.method === 'GET') return json(200, { attributes: { type: 'Lead' }, Id: lead[1], FirstName: 'Ada', LastName: 'Lovelace', Phone: '+14155550123', OwnerId: OWNER });
  if (req.url?.startsWith('/services/')) return json(400, [{ errorCode: CODE, message: `${CODE}: internal host db-7.corp answered` }]);
  if (req.url?.startsWith('/crm/')) return json(400, { status: 'error', category: CODE, message: `${CODE}: internal`, correlationId: 'abc123' });
  json(400, { success: false, error: `${CODE}: internal`, errorCode: CODE, error_info: CODE });
}

let crm: CountingListener;
let salesforce: FakeSalesforce;
let stack: TestStack;
let token: string;
let inboundUrl: string;
let warnings: jest.SpyInstance;

beforeAll(async () => {
  crm = await startCountingListener(leakyCrm);
  // The fake only builds and sends the Outbound Message; the REST API it names is the leaky one.
  salesforce = await startFakeSalesforce();
  const url = `http://127.0.0.1:${crm.port}`;
  stack = await startTestStack({ env: { HUBSPOT_API_URL: url, SALESFORCE_API_URL: url, PIPEDRIVE_API_URL: url } });
  token = stack.token('crm-error-codes-user');
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  const connectors = {
    hubspot: { client_secret: 's', access_token: 'pat-na1-x' },
    salesforce: { organization_id: salesforce.organizationId, instance_url: 'https://acme.my.salesforce.com', access_token: 't' },
    pipedrive: { api_token: 'p', webhook_user: 'u', webhook_password: 'w' },
  };
  for (const [name, settings] of Object.entries(connectors)) {
    const put = await stack.api('PUT', `/integrations/${name}`, { token, body: { agents: ['a1'], settings, agent_map: { [OWNER]: 'a1' } } });
    expect(put.status).toBe(201);
    if (name === 'salesforce') inboundUrl = put.body.inbound_url;
  }
});
beforeEach(() => {
  warnings = jest.spyOn(logger, 'warn');
});
afterEach(() => warnings.mockRestore());
afterAll(async () => {
  await stack?.stop();
  await salesforce?.stop();
  await crm?.close();
});

const leaks = (value: unknown) => /LEAK|abc123|db-7/i.test(JSON.stringify(value));
const loggedCodes = () => warnings.mock.calls.map(([fields]) => fields).filter((fields) => fields?.event === 'crm.request_failed');

test.each([
  ['hubspot', 'HubSpot refused to list new contacts (HTTP 400)'],
  ['salesforce', "Salesforce refused to list new Leads (an error answer: its code is in the service's log)"],
  ['pipedrive', 'Pipedrive refused to list new records (HTTP 400)'],
])('%s: a refused sweep is a 503 in our words, and the CRM code is logged at warn only', async (name, refused) => {
  const answer = await stack.api('POST', `/integrations/${name}/sync`, { token });
  expectProblem(answer, 503, `${refused}: nothing was swept, try again later`);
  expect(leaks(answer.body)).toBe(false);
  expect(loggedCodes()).toContainEqual(expect.objectContaining({ crm: refused.split(' ')[0], code: CODE }));
});

test("a Salesforce owner write refused with the CRM's code is crm.owner_sync_failed in our words; no event carries the code", async () => {
  const id = salesforce.newLeadId();
  expect((await salesforce.send(inboundUrl, salesforce.outboundMessage([id]))).status).toBe(200);
  const clientId = `salesforce:${id}`;
  const [event] = await eventually(async () => {
    const listed = (await stack.api('GET', `/events?type=crm.owner_sync_failed&client=${encodeURIComponent(clientId)}`, { token })).body.events;
    return listed?.length ? listed : undefined;
  }, 30_000);
  expect(event.data).toMatchObject({ client: clientId, crm: 'salesforce', agent: 'a1', crm_owner_id: OWNER, error: "Salesforce refused to write the Lead owner (an error answer: its code is in the service's log)" });
  const everything = (await stack.api('GET', '/events', { token })).body;
  expect(everything.events.length).toBeGreaterThan(0);
  expect(leaks(everything)).toBe(false);
  const lead = await stack.prisma.crmLead.findFirstOrThrow({ where: { business: stack.business, crm: 'salesforce', recordId: id } });
  expect(leaks(lead)).toBe(false);
  expect(loggedCodes()).toContainEqual(expect.objectContaining({ crm: 'Salesforce', action: 'write the Lead owner', code: CODE }));
});
