import { fetchCarrierMedia, originOf } from '../media-fetch';
import type { FetchedMedia } from '../types';

/*
 * Inbound media on Telnyx's media servers (`https://media.telnyx.com/…` in Telnyx's receiving guide):
 * short-lived links that serve the file by themselves. Telnyx's documentation asks for no credentials on
 * them, so the API key is never sent; only Telnyx's hosts (and TELNYX_API_URL's origin, the test double)
 * are fetched.
 */

const TELNYX_HOST = /^([a-z0-9-]{1,63}\.)*telnyx\.com$/;

export function telnyxMediaFetcher(apiUrl: string | undefined): (url: string) => Promise<FetchedMedia> {
  const configured = originOf(apiUrl);
  return (url) =>
    fetchCarrierMedia(url, {
      carrier: 'Telnyx',
      allowed: (target) => (target.protocol === 'https:' && TELNYX_HOST.test(target.hostname) && target.port === '') || target.origin === configured,
    });
}
