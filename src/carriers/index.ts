import type { Config } from '../config/index';
import { createTelnyxCarrier } from './telnyx';
import { createTwilioCarrier, twilioSettingsOf } from './twilio';
import type { Carrier } from './types';
import { createVonageCarrier } from './vonage';

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
    case 'simulator':
      // npm start starts the simulator and hands its address and account in as Twilio settings.
      if (!config.TWILIO_API_URL || !config.TWILIO_ACCOUNT_SID || !config.TWILIO_AUTH_TOKEN || !config.PUBLIC_BASE_URL) {
        throw new Error('MESSAGE_PROVIDER=simulator runs inside npm start, which starts the simulator');
      }
      return createTwilioCarrier({ ...twilioSettingsOf(config), name: 'simulator' });
    case 'telnyx':
      return createTelnyxCarrier(config);
    case 'vonage':
      return createVonageCarrier(config);
  }
}

/** Where a message's receipts are asked for. */
export function statusCallbackUrl(publicBaseUrl: string, carrier: string, messageId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/providers/${carrier}/status/${messageId}`;
}
