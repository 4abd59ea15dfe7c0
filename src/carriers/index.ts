import type { Config } from '../config';
import { createTwilioCarrier, twilioSettingsOf } from './twilio';
import type { Carrier } from './types';

export type { Carrier, CarrierCallback, CarrierName, CarrierSend, Inbound, Receipt } from './types';
export { CARRIER_NAMES, CarrierRejected, CarrierUnavailable } from './types';

/** The configured carrier, or undefined for the `log` and `webhook` providers (no receipts, no inbound texts). */
export function createCarrier(config: Config): Carrier | undefined {
  switch (config.MESSAGE_PROVIDER) {
    case 'log':
    case 'webhook':
      return undefined;
    case 'twilio':
      return createTwilioCarrier(twilioSettingsOf(config));
    default:
      throw new Error(`MESSAGE_PROVIDER=${config.MESSAGE_PROVIDER} is not available in this build`);
  }
}

/** Where a message's receipts are asked for. */
export function statusCallbackUrl(publicBaseUrl: string, carrier: string, messageId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/providers/${carrier}/status/${messageId}`;
}
