import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CrmFakeCredentials } from '../../../src/stack/crm-fakes';
import { eventually } from '../../support/helpers';
import { request } from '../../support/process';
import type { SharedNpmStart } from '../../support/shared-npm-start';

/*
 * The "done when", on npm start with CRM_FAKES=1: for each CRM, one new record posted by its fake
 * webhook sender makes a client, is routed by the connector's policy and its owner is written back within
 * 5 s; the very same delivery replayed changes nothing; a stale signature (HubSpot), another org
 * (Salesforce) or wrong credentials (Pipedrive) is a 401. The three CRMs share one business.
 */

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as { id?: string; status: number; body: string; request: { url: string; headers: Record<string, string>; body: string } };
};
const replay = async (sent: { request: { url: string; headers: Record<string, string>; body: string } }) => {
  const response = await fetch(sent.request.url, { method: 'POST', headers: sent.request.headers, body: sent.request.body });
  return { status: response.status, body: await response.text() };
};
const BUSINESS = 'crm';
const writesAt = async (fakeUrl: string) => (await (await fetch(`${fakeUrl}/_fake/writes`)).json()) as { id: string; owner: string | number; status: number }[];

export function crmFakes(shared: () => SharedNpmStart): void {
  test('npm start with the CRM fakes: a new HubSpot contact, Salesforce Lead and Pipedrive person are routed and their owners written back within 5 s; replays change nothing; bad senders are 401', async () => {
    const { stack, dataDir, origin, tokenOf } = shared();
    const api = `${origin}/ext/v2/${BUSINESS}`;
    expect(stack.output()).toContain(`CRM in       HubSpot    ${origin}/integrations/hubspot/{business}/webhook`);
    expect(stack.output()).toContain(`Salesforce ${origin}/integrations/salesforce/{business}/outbound-message`);
    expect(stack.output()).toContain(`Pipedrive  ${origin}/integrations/pipedrive/{business}/webhook`);
    expect(stack.output()).toMatch(/CRM fakes {4}HubSpot http:\/\/127\.0\.0\.1:\d+, Salesforce http:\/\/127\.0\.0\.1:\d+, Pipedrive http:\/\/127\.0\.0\.1:\d+; settings for the connectors in .*dev-crm-fakes\.json/);
    const fakes = JSON.parse(await readFile(join(dataDir, 'dev-crm-fakes.json'), 'utf8')) as CrmFakeCredentials;
    // The credentials are in the file, never in the output.
    expect(stack.output()).not.toContain(fakes.hubspot.client_secret);

    const token = tokenOf('user-1');
    const call = (path: string, method = 'GET', body?: unknown) => request(`${api}${path}`, token, method, body);
    for (const _id of ['a1', 'a2']) expect((await call('/agents', 'POST', { _id })).status).toBe(201);
    expect((await call('/teams/sales', 'PUT', { members: [{ agent: 'a1' }, { agent: 'a2' }] })).status).toBe(200);
    expect((await call('/routing-policies/sales', 'PUT', { team: 'sales', working_hours: false })).status).toBe(200);
    const pipedriveHook = { webhook_user: 'pipedrive', webhook_password: 'hook-password' };
    const connectors = {
      hubspot: { settings: { access_token: fakes.hubspot.access_token, client_secret: fakes.hubspot.client_secret }, agent_map: { '501': 'a1', '777': 'a2' } },
      salesforce: {
        settings: { organization_id: fakes.salesforce.organization_id, instance_url: 'https://acme.my.salesforce.com', access_token: 'expired', refresh_token: fakes.salesforce.refresh_token, client_id: fakes.salesforce.client_id, client_secret: fakes.salesforce.client_secret },
        agent_map: { '005000000000001AAA': 'a1', '005000000000002AAA': 'a2' },
      },
      pipedrive: { settings: { api_token: fakes.pipedrive.api_token, ...pipedriveHook }, agent_map: { '4242': 'a1', '4343': 'a2' } },
    };
    const inbound: Record<string, string> = {};
    for (const [crm, body] of Object.entries(connectors)) {
      const put = await call(`/integrations/${crm}`, 'PUT', { policy: 'sales', ...body });
      expect({ crm, status: put.status, detail: put.body.detail }).toEqual({ crm, status: 201, detail: undefined });
      inbound[crm] = put.body.inbound_url;
    }

    /** The record's owner written back within 5 s of its webhook, as the agent the policy chose; the client made. */
    const expectRoutedAndWritten = async (crm: keyof typeof connectors, recordId: string, fakeUrl: string, sentAt: number) => {
      const write = await eventually(async () => (await writesAt(fakeUrl)).find((w) => w.id === recordId && w.status < 300), 10_000, 100);
      const elapsed = Date.now() - sentAt;
      const assignments = (await call(`/clients/${crm}:${recordId}/agents`)).body.assignments;
      expect(assignments).toHaveLength(1);
      expect(assignments[0].routed_by).toMatchObject({ policy: 'sales' });
      expect(String(write.owner)).toBe(Object.entries(connectors[crm].agent_map).find(([, agent]) => agent === assignments[0].agent)![0]);
      expect(elapsed).toBeLessThan(5_000);
      return elapsed;
    };
    /** The same delivery again: answered as before, and after a while still one decision and one write. */
    const expectReplayChangesNothing = async (crm: keyof typeof connectors, recordId: string, fakeUrl: string, sent: Awaited<ReturnType<typeof post>>) => {
      const again = await replay(sent);
      expect(again.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect((await writesAt(fakeUrl)).filter((w) => w.id === recordId)).toHaveLength(1);
      expect((await call(`/clients/${crm}:${recordId}/agents?status=all`)).body.assignments).toHaveLength(1);
      return again;
    };

    // HubSpot: a signed contact.creation.
    let sentAt = Date.now();
    const contact = await post(`${fakes.hubspot.url}/_fake/contacts`, { id: 9001, firstname: 'Ada', lastname: 'Lovelace', phone: '+1 415 555 0100', target: inbound.hubspot });
    expect(contact.status).toBe(200);
    const hubspotMs = await expectRoutedAndWritten('hubspot', '9001', fakes.hubspot.url, sentAt);
    expect((await call('/clients/hubspot:9001')).body).toMatchObject({ name: 'Ada Lovelace', phone: '+14155550100' });
    await expectReplayChangesNothing('hubspot', '9001', fakes.hubspot.url, contact);
    const stale = await post(`${fakes.hubspot.url}/_fake/contacts`, { id: 9002, firstname: 'Old', target: inbound.hubspot, timestamp: Date.now() - 6 * 60_000 });
    expect(stale.status).toBe(401);
    expect((await call('/clients/hubspot:9002')).status).toBe(404);

    // Salesforce: an Outbound Message, answered with its Ack.
    sentAt = Date.now();
    const lead = await post(`${fakes.salesforce.url}/_fake/leads`, { FirstName: 'Grace', LastName: 'Hopper', Phone: '+14155550101', target: inbound.salesforce });
    expect(lead.status).toBe(200);
    expect(lead.body).toContain('<Ack>true</Ack>');
    const salesforceMs = await expectRoutedAndWritten('salesforce', lead.id!, fakes.salesforce.url, sentAt);
    expect((await expectReplayChangesNothing('salesforce', lead.id!, fakes.salesforce.url, lead)).body).toContain('<Ack>true</Ack>');
    const otherOrg = await post(`${fakes.salesforce.url}/_fake/leads`, { LastName: 'Stranger', target: inbound.salesforce, organizationId: '00D000000000000EEE' });
    expect(otherOrg.status).toBe(401);
    expect((await call(`/clients/salesforce:${otherOrg.id}`)).status).toBe(404);

    // Pipedrive: a webhooks v2 person creation with the connector's Basic credentials.
    sentAt = Date.now();
    const person = await post(`${fakes.pipedrive.url}/_fake/persons`, { id: 7001, name: 'Katherine Johnson', phone: '+14155550102', target: inbound.pipedrive, user: pipedriveHook.webhook_user, password: pipedriveHook.webhook_password });
    expect(person.status).toBe(200);
    const pipedriveMs = await expectRoutedAndWritten('pipedrive', '7001', fakes.pipedrive.url, sentAt);
    await expectReplayChangesNothing('pipedrive', '7001', fakes.pipedrive.url, person);
    const wrong = await post(`${fakes.pipedrive.url}/_fake/persons`, { id: 7002, name: 'Eve', target: inbound.pipedrive, user: pipedriveHook.webhook_user, password: 'not-it' });
    expect(wrong.status).toBe(401);
    expect((await call('/clients/pipedrive:7002')).status).toBe(404);
    console.log(`npm start, webhook to owner written: HubSpot ${hubspotMs} ms, Salesforce ${salesforceMs} ms, Pipedrive ${pipedriveMs} ms`);
  }, 240_000);
}
