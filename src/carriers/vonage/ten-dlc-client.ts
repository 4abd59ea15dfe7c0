import { answerTooLargeIn, answerTooLargeRefusal } from '../answer-cap';
import type { A2pRegistration } from '../../domain/number-registration';
import { CarrierUnavailable } from '../types';
import { classifyVonageError } from './errors';
import { type TenDlcGet, VONAGE_10DLC_HOST, vonageRegistration } from './registration';

// Loaded on first use, as the SDK is (./index.ts).
const serverClient = () => require('@vonage/server-client') as typeof import('@vonage/server-client');

/**
 * The reader of a number's registration through the SDK's own HTTP client, with Basic key:secret as
 * Vonage documents for its 10DLC API. `host`: VONAGE_API_URL when set (a fake in tests), else Vonage's.
 */
export function vonageRegistrationReader(
  credentials: { apiKey: string; apiSecret: string },
  options: { host?: string; timeout: number; readCapped: (client: object) => void },
): (number: string) => Promise<A2pRegistration> {
  const { Client, AuthenticationType } = serverClient();
  const client = new Client(credentials, { timeout: options.timeout });
  (client as unknown as { authType: string }).authType = AuthenticationType.BASIC;
  options.readCapped(client);
  const host = options.host ?? VONAGE_10DLC_HOST;
  return async (number) => {
    try {
      return await vonageRegistration(client as unknown as TenDlcGet, host, number);
    } catch (error) {
      if (answerTooLargeIn(error)) throw answerTooLargeRefusal('Vonage', 'the registration lookup');
      const classified = await classifyVonageError(error);
      throw classified instanceof CarrierUnavailable ? classified : new CarrierUnavailable(`Vonage registration lookup refused (${classified.code})`);
    }
  };
}
