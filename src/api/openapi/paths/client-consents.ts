import { CONSENT_SCHEMAS, ConsentList } from '../../../use-cases/clients/contract';
import type { ApiPart } from '../components';
import { badBody, inBusiness, json, NO_ROUTE_EXAMPLE, operation, pathParameter, PREFIX, problem, ref, routeResponses } from '../components';
import { inlineSchema } from '../from-zod';
import { clientIdParameter } from './clients';

const clientNotFound = { clientNotFound: 'Client not found' };
const channelNotFound = { channelNotFound: 'Consent channel not found: consents are kept for whatsapp' };
const channelParameter = pathParameter('channel', 'The channel: only `whatsapp` (WhatsApp needs the client\'s opt-in); any other is a 404.', { type: 'string' }, 'whatsapp');

const consent = { channel: 'whatsapp', source: 'web form, 2026-11-20', at: '2026-11-20T14:03:00.000Z', updated_at: '2026-11-27T10:00:00.000Z' };

export const clientConsentsApi: ApiPart = {
  tags: [],
  contracts: CONSENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients/{_id}/consents`]: inBusiness({
      get: operation('listClientConsents', 'Clients', 'A client\'s consents', {
        description: 'The channels the client opted in to, by channel.',
        responses: routeResponses(false, {
          200: json('Its consents.', inlineSchema(ConsentList, 'output'), { example: { consents: [consent] } }),
          404: problem(404, 'No such client of the caller in this business.', { ...clientNotFound, ...NO_ROUTE_EXAMPLE }),
        }),
      }),
    }, clientIdParameter),
    [`${PREFIX}/clients/{_id}/consents/{channel}`]: inBusiness({
      put: operation('putClientConsent', 'Clients', 'Record a client\'s opt-in to a channel', {
        description:
          'WhatsApp requires the client\'s opt-in before a business starts a conversation: a WhatsApp template goes only to a client whose consent is recorded ' +
          '(a reply inside the 24-hour window needs none: the client wrote first). Recording it again replaces `source` and `at`. Consents are erased with their client.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'ConsentRecord'), example: { source: 'web form, 2026-11-20', at: '2026-11-20T14:03:00.000Z' } } } },
        responses: routeResponses(true, {
          200: json('The consent as recorded.', ref('schemas', 'Consent'), { example: consent }),
          400: badBody('A field is invalid; the detail names it. Nothing is stored.', {
            invalidSource: 'Invalid source: must be a non-empty string of at most 200 characters saying where the client opted in',
            invalidAt: 'Invalid at: must be an ISO 8601 date-time, not in the future',
          }),
          404: problem(404, 'No such client of the caller in this business (checked first), or not a channel consents are kept for.', { ...clientNotFound, ...channelNotFound, ...NO_ROUTE_EXAMPLE }),
        }),
      }),
      delete: operation('deleteClientConsent', 'Clients', 'Withdraw a client\'s opt-in', {
        description: 'The client withdrew it: a template may no longer start a WhatsApp conversation with it. Consent is checked at accept: a template message accepted before still goes when due.',
        responses: routeResponses(false, {
          204: { description: 'Withdrawn.' },
          404: problem(404, 'No such client of the caller, not a channel consents are kept for, or no consent recorded.', {
            ...clientNotFound,
            ...channelNotFound,
            consentNotFound: 'Consent not found',
            ...NO_ROUTE_EXAMPLE,
          }),
        }),
      }),
    }, clientIdParameter, channelParameter),
  },
};
