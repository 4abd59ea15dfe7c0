import type { CrmEndpoints } from '../config/index';
import type { Crm } from '../domain';
import { publicOnlyCrmNetwork, type OutboundNetwork } from '../net/outbound';
import { hubspotApi } from './hubspot';
import { pipedriveApi } from './pipedrive';
import { salesforceApi } from './salesforce';
import type { CrmApi } from './types';

export type { CrmApi, CrmRecord } from './types';
export { CrmRequestFailed } from './types';
export { verifyBasicAuth, verifyHubspotSignature, hubspotSignatureV3, HUBSPOT_SIGNATURE_MAX_AGE_MS, newInboundToken, inboundTokenHash, verifyInboundToken } from './signatures';

/**
 * The CRM's SDK client for one connector: its plain settings and its opened credentials, connecting
 * through `network` (the public-address guard by default).
 */
export function crmApiOf(crm: Crm, settings: Record<string, string>, secrets: Record<string, string>, endpoints: CrmEndpoints = {}, network: OutboundNetwork = publicOnlyCrmNetwork()): CrmApi {
  switch (crm) {
    case 'hubspot':
      return hubspotApi(secrets.access_token, endpoints.hubspot, network);
    case 'salesforce':
      return salesforceApi({
        instanceUrl: endpoints.salesforce ?? settings.instance_url,
        accessToken: secrets.access_token,
        refreshToken: secrets.refresh_token,
        clientId: settings.client_id,
        clientSecret: secrets.client_secret,
        // A test's or npm start's fake serves the token endpoint beside the REST API.
        loginUrl: endpoints.salesforce ?? settings.login_url,
      }, network);
    case 'pipedrive':
      return pipedriveApi(secrets.api_token, endpoints.pipedrive, network);
  }
}
