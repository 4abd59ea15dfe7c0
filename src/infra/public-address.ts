import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/*
 * Webhook receivers are the tenants' own URLs, fetched from inside our network: without this check a
 * tenant could make the worker POST to the cloud metadata service, the database or anything else only
 * reachable from within. Private, loopback, link-local, shared, multicast and reserved ranges are refused.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? isPublicAddress(mapped[1]) : !NOT_PUBLIC.check(address, 'ipv6');
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** What the URL itself says: a literal non-public address or a localhost name. DNS is not asked. */
export function namesNonPublicHost(url: URL): boolean {
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && !isPublicAddress(host);
}

/** Every address the URL's host resolves to is public (checked just before each attempt). */
export async function resolvesToPublicAddresses(url: URL): Promise<boolean> {
  if (namesNonPublicHost(url)) return false;
  const host = hostOf(url);
  if (isIP(host)) return true;
  const addresses = await lookup(host, { all: true, verbatim: true });
  return addresses.length > 0 && addresses.every(({ address }) => isPublicAddress(address));
}
