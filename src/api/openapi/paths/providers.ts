import { CARRIER_NAMES } from '../../../carriers/types';
import { CarrierCallbackReceived } from '../../../use-cases/carriers/contract';
import { CALLBACK_BODY, CARRIER_CALLBACKS_TAG, CARRIER_OPERATIONS as ops } from '../../../use-cases/carriers/operations';
import { type ApiPart, type OpenApiObject, pathParameter } from '../components';
import { inlineSchema } from '../from-zod';
import { operationOf } from '../operation';
import { publicDoorLimited } from './public-door-limit';

const TAG = 'Carrier callbacks';
const carrierParameter = pathParameter('carrier', 'The configured carrier (`MESSAGE_PROVIDER`); any other name is a 404.', { enum: [...CARRIER_NAMES] });
const messageIdParameter = pathParameter('messageId', 'Our message id, as the send named it.', { type: 'string' });

/** The carrier's callback as it comes (its signature is over the raw bytes), and the answer in the carrier's dialect. */
const callback = (operationId: keyof typeof ops, parameters: OpenApiObject[]): OpenApiObject => ({
  post: operationOf(operationId, TAG, ops[operationId], {
    security: [],
    shared: { 429: publicDoorLimited(' The carrier retries.') },
    parameters,
    requestBody: { required: true, description: CALLBACK_BODY, content: { '*/*': { schema: {} } } },
    responses: {
      200: {
        description: ops[operationId].responses[200].description,
        content: {
          'application/json': { schema: inlineSchema(CarrierCallbackReceived, 'output'), example: { received: true } },
          'text/xml': { schema: { type: 'string' }, example: '<?xml version="1.0" encoding="UTF-8"?><Response/>' },
        },
      },
    },
  }),
});

export const providersApi: ApiPart = {
  tags: [{ name: TAG, description: CARRIER_CALLBACKS_TAG }],
  paths: {
    '/providers/{carrier}/status': callback('postCarrierReceipt', [carrierParameter]),
    '/providers/{carrier}/status/{messageId}': callback('postCarrierMessageReceipt', [carrierParameter, messageIdParameter]),
    '/providers/{carrier}/inbound': callback('postCarrierInbound', [carrierParameter]),
  },
};
