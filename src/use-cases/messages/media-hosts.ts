import { isIP } from 'node:net';
import { isPublicAddress, systemLookup, type HostLookup } from '../../net/public-address';
import { Invalid } from '../errors';

/*
 * A media URL's host, resolved at accept. Only the carrier fetches the file, so this service
 * is not exposed; but a name that resolves to a private address (127.0.0.1.nip.io, localtest.me,
 * instance-data) is a file no carrier can fetch, refused now rather than failed at send. A name that
 * does not resolve here, or not in time, is left to the carrier: its DNS is not ours.
 */

/** How long the accept waits for a media URL's name to resolve. */
export const MEDIA_HOST_LOOKUP_TIMEOUT_MS = 2000;

export interface MediaHostDeps {
  /** How names are resolved (tests answer with addresses of their choosing); unset, the system's resolver. */
  hostLookup?: HostLookup;
}

/** The first address of `host` that is not public, or undefined (public, unresolved, or too slow). */
async function privateAddressOf(host: string, lookup: HostLookup, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
  try {
    const addresses = await Promise.race([lookup(host).catch(() => undefined), late]);
    return addresses?.find(({ address }) => !isPublicAddress(address))?.address;
  } finally {
    clearTimeout(timer);
  }
}

/** Invalid, naming the first media URL whose host resolves to a private, loopback, link-local or unique-local address. */
export async function refuseMediaOnPrivateHosts(media: readonly { url: string }[], deps: MediaHostDeps, timeoutMs = MEDIA_HOST_LOOKUP_TIMEOUT_MS): Promise<void> {
  const lookup = deps.hostLookup ?? systemLookup;
  const hosts = media.map(({ url }) => new URL(url).hostname.replace(/^\[|\]$/g, ''));
  // Literal addresses were judged by the text (channel-request.ts); names are asked once each, together.
  const names = [...new Set(hosts.filter((host) => isIP(host) === 0))];
  const found = new Map(await Promise.all(names.map(async (name) => [name, await privateAddressOf(name, lookup, timeoutMs)] as const)));
  for (const [k, host] of hosts.entries()) {
    const address = found.get(host);
    if (address) throw new Invalid(`Invalid media[${k}].url: must be a public https URL; ${host} resolves to ${address}, a private, loopback or link-local address`);
  }
}
