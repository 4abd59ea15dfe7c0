import { loadConfig } from '../../src/config/index';
import { hubspotApi } from '../../src/crm/hubspot';
import { pipedriveApi } from '../../src/crm/pipedrive';
import { salesforceApi } from '../../src/crm/salesforce';
import type { CrmApi } from '../../src/crm/types';
import { CRM_ANSWER_MAX_BYTES } from '../../src/net/capped-body';
import { outboundNetworksOf, type OutboundNetwork } from '../../src/net/outbound';
import { startEndlessAnswer, type EndlessAnswer } from '../support/endless-answer';

/*
 * A CRM (or whatever a connector's URL names) that answers 200 and streams an endless body: each SDK
 * reads through the process's CRM network, which cuts an answer off at CRM_ANSWER_MAX_BYTES (its
 * node:http agents under HubSpot's SDK and Pipedrive's axios; its undici dispatcher under jsforce, which
 * once crashed the process on a body cut off midway). The call fails for good with our words, the
 * process lives on, and the host managed to write little more than the cap.
 */

const BUFFERS = 16 * 1024 * 1024;

let endless: EndlessAnswer;
let network: OutboundNetwork;
beforeAll(async () => {
  endless = await startEndlessAnswer();
  // The composition root's CRM network (the guard off only because the host is this machine).
  network = outboundNetworksOf(loadConfig({ CRM_ALLOW_PRIVATE_URLS: 'true' })).crm;
});
afterAll(() => endless?.close());

const crms: [string, () => CrmApi, string][] = [
  ['HubSpot', () => hubspotApi('pat-na1-x', endless.url, network), 'read the contact'],
  ['Pipedrive', () => pipedriveApi('p', endless.url, network), 'read the record'],
  ['Salesforce', () => salesforceApi({ instanceUrl: endless.url, accessToken: 't' }, network), 'read the Lead'],
];

test.each(crms)('%s answering an endless 200: the read fails for good, saying so, and the connection is closed at the cap', async (crm, api, action) => {
  const before = endless.bytesSent;
  const closed = endless.nextClose();
  const read = api().fetchRecord('12345');
  await expect(read).rejects.toMatchObject({ name: 'CrmRequestFailed', final: true, message: `${crm}'s answer to ${action} was larger than 4 MiB and was not read` });
  await closed;
  expect(endless.bytesSent - before).toBeLessThan(CRM_ANSWER_MAX_BYTES + BUFFERS);
});
