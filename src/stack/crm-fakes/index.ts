import { createHmac } from 'node:crypto';
import { startFakeHubspot } from './hubspot';
import { startFakePipedrive } from './pipedrive';
import { startFakeSalesforce } from './salesforce';

/*
 * The three CRM fakes `npm start` runs with CRM_FAKES=1 (development only): the same servers the tests
 * use, on free local ports, with credentials derived from the data directory's development secret so a
 * connector put once keeps working across restarts. The SDKs' REST bases point at them.
 */

export interface CrmFakeCredentials {
  hubspot: { url: string; access_token: string; client_secret: string };
  salesforce: { url: string; organization_id: string; refresh_token: string; client_id: string; client_secret: string };
  pipedrive: { url: string; api_token: string };
}

export interface RunningCrmFakes {
  credentials: CrmFakeCredentials;
  endpoints: { HUBSPOT_API_URL: string; SALESFORCE_API_URL: string; PIPEDRIVE_API_URL: string };
  stop(): Promise<void>;
}

/** Salesforce ids are 18 characters of letters and digits. */
const derived = (secret: string, name: string, length = 32) => createHmac('sha256', secret).update(name).digest('hex').slice(0, length);

export async function startCrmFakes(secret: string): Promise<RunningCrmFakes> {
  const hubspot = await startFakeHubspot({ accessToken: `pat-na1-${derived(secret, 'hubspot-token')}`, clientSecret: derived(secret, 'hubspot-secret') });
  const salesforce = await startFakeSalesforce({
    organizationId: `00D${derived(secret, 'salesforce-org', 15)}`,
    refreshToken: `5Aep${derived(secret, 'salesforce-refresh')}`,
    clientId: `3MVG9${derived(secret, 'salesforce-client', 16)}`,
    clientSecret: derived(secret, 'salesforce-secret'),
  });
  const pipedrive = await startFakePipedrive({ apiToken: `pd-${derived(secret, 'pipedrive-token')}` });
  return {
    credentials: {
      hubspot: { url: hubspot.url, access_token: hubspot.accessToken, client_secret: hubspot.clientSecret },
      salesforce: { url: salesforce.url, organization_id: salesforce.organizationId, refresh_token: salesforce.refreshToken, client_id: salesforce.clientId, client_secret: salesforce.clientSecret },
      pipedrive: { url: pipedrive.url, api_token: pipedrive.apiToken },
    },
    endpoints: { HUBSPOT_API_URL: hubspot.url, SALESFORCE_API_URL: salesforce.url, PIPEDRIVE_API_URL: pipedrive.url },
    stop: async () => {
      await Promise.all([hubspot.stop(), salesforce.stop(), pipedrive.stop()]);
    },
  };
}
