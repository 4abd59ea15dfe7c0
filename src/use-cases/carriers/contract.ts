import { z } from 'zod';

/* The contract of the carriers' callbacks (`/providers/{carrier}/…`): the JSON answer to a carrier that does not read TwiML. The OpenAPI document is generated from it. */

export const CarrierCallbackReceived = z.strictObject({ received: z.literal(true) });

export type CarrierCallbackAnswer = z.output<typeof CarrierCallbackReceived>;
