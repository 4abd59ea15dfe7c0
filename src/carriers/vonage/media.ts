import { fetchCarrierMedia, originOf } from '../media-fetch';
import type { FetchedMedia } from '../types';

/*
 * Inbound media on Vonage's media servers (`https://api-us.nexmo.com/v3/media/<uuid>` and the other
 * regions' hosts). With "Secure inbound media" on in the application (Vonage's recommended setting), a
 * file is served only to a request carrying the JWT of the application whose webhook received it; with it
 * off, the URL alone serves it. The application's JWT is sent when the carrier has one (to Vonage's hosts
 * only); with key and secret only, nothing is.
 */

/** Vonage's API hosts, which serve the Messages API's inbound media: `api.nexmo.com`, `api-us.nexmo.com`, `api-eu.vonage.com`, … */
const VONAGE_HOST = /^api(-[a-z0-9]{1,20}){0,2}\.(nexmo|vonage)\.com$/;

export interface VonageMediaOptions {
  /** VONAGE_API_URL: its origin is let through too (the test double, a proxy). */
  apiUrl?: string;
  /** The `Authorization` value for the application (`Bearer <JWT>`), when sends use one. */
  bearer?: () => Promise<string>;
}

export function vonageMediaFetcher(options: VonageMediaOptions): (url: string) => Promise<FetchedMedia> {
  const configured = originOf(options.apiUrl);
  return (url) =>
    fetchCarrierMedia(url, {
      carrier: 'Vonage',
      allowed: (target) => (target.protocol === 'https:' && VONAGE_HOST.test(target.hostname) && target.port === '') || target.origin === configured,
      headers: options.bearer ? async () => ({ authorization: await options.bearer!() }) : undefined,
    });
}
