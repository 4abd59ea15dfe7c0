import { CONSENT_SCHEMAS } from '../../../use-cases/clients/contract';
import { CLIENT_OPERATIONS as ops } from '../../../use-cases/clients/operations';
import type { ApiPart } from '../components';
import { inBusiness, pathParameter, PREFIX } from '../components';
import { operationOf } from '../operation';
import { clientIdParameter } from './clients';

const channelParameter = pathParameter('channel', 'The channel: only `whatsapp` (WhatsApp needs the client\'s opt-in); any other is a 404.', { type: 'string' }, 'whatsapp');

export const clientConsentsApi: ApiPart = {
  tags: [],
  contracts: CONSENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients/{_id}/consents`]: inBusiness({ get: operationOf('listClientConsents', 'Clients', ops.listClientConsents) }, clientIdParameter),
    [`${PREFIX}/clients/{_id}/consents/{channel}`]: inBusiness(
      {
        put: operationOf('putClientConsent', 'Clients', ops.putClientConsent, { body: true }),
        delete: operationOf('deleteClientConsent', 'Clients', ops.deleteClientConsent),
      },
      clientIdParameter,
      channelParameter,
    ),
  },
};
