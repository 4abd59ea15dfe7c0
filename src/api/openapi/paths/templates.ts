import { TEMPLATE_SCHEMAS } from '../../../use-cases/templates/contract';
import { TEMPLATE_OPERATIONS as ops, TEMPLATES_TAG } from '../../../use-cases/templates/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, PREFIX } from '../components';
import { pageParameters } from '../from-zod';
import { operationOf, type Wiring } from '../operation';

const TAG = 'WhatsApp templates';
const templateIdParameter = idParameter('The template\'s id, chosen by the caller. One of another user or business is the same 404 as a missing one.', 'order_shipped');
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, TAG, ops[operationId], wiring);

export const templatesApi: ApiPart = {
  tags: [{ name: TAG, description: TEMPLATES_TAG }],
  contracts: TEMPLATE_SCHEMAS,
  paths: {
    [`${PREFIX}/templates`]: inBusiness({ get: op('listTemplates', { parameters: pageParameters('Templates a page, 1-100 (50 by default).') }) }),
    [`${PREFIX}/templates/{_id}`]: inBusiness({ put: op('putTemplate', { body: true }), get: op('getTemplate'), delete: op('deleteTemplate') }, templateIdParameter),
  },
};
