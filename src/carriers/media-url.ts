import { CarrierRejected } from './types';

/** A media URL a carrier is asked to fetch: absolute https, or refused before the carrier is called. */
export function httpsMediaUrl(raw: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') throw new CarrierRejected('media-url', 'A media URL must be an absolute https URL');
  return url;
}
