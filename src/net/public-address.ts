import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/*
 * Webhook receivers are the tenants' own URLs, fetched from inside our network: without this check a
 * tenant could make the worker POST to the cloud metadata service, the database or anything else only
 * reachable from within. An address is public only outside every block of IANA's IPv4 and IPv6
 * Special-Purpose Address Registries (even those marked globally reachable: no receiver lives there),
 * multicast and the reserved space. IPv6 is public only inside global unicast (2000::/3); the forms
 * that carry an IPv4 address inside IPv6 (compatible, translated, NAT64, 6to4, Teredo) are refused
 * whatever they carry, except IPv4-mapped (::ffff:a.b.c.d), which is that IPv4 address itself.
 */
type Block = readonly [network: string, prefix: number];

const IPV4_NOT_PUBLIC: readonly Block[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast 255.255.255.255
];

/** Special-purpose blocks inside 2000::/3; everything outside 2000::/3 (::1, fc00::/7, fe80::/10, fec0::/10, ff00::/8, 64:ff9b::/96, 100::/64 …) is not public anyway. */
const IPV6_GLOBAL_UNICAST: Block = ['2000::', 3];
const IPV6_NOT_PUBLIC: readonly Block[] = [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, AMT, AS112 …
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['2620:4f:8000::', 48], // direct delegation AS112
  ['3fff::', 20], // documentation
];

function ipv4Bytes(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address in any textual form (`::`, an embedded dotted IPv4, a zone id). */
function ipv6Bytes(address: string): number[] | undefined {
  const text = address.replace(/%.*$/, '');
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const words: number[] = [];
    const pieces = half.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = ipv4Bytes(piece);
        if (!v4) return undefined;
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) words.push(parseInt(piece, 16));
      else return undefined;
    }
    return words;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const words = [...head, ...Array<number>(missing).fill(0), ...tail];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

function inBlock(bytes: number[], [network, prefix]: Block, parse: (address: string) => number[] | undefined): boolean {
  const base = parse(network)!;
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[bit >> 3] & mask) !== (base[bit >> 3] & mask)) return false;
  }
  return true;
}

const isPublicIpv4 = (bytes: number[]) => !IPV4_NOT_PUBLIC.some((block) => inBlock(bytes, block, ipv4Bytes));

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const bytes = ipv4Bytes(address);
    return bytes !== undefined && isPublicIpv4(bytes);
  }
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  if (!bytes) return false;
  // ::ffff:0:0/96, IPv4-mapped in any notation (::ffff:7f00:1 is 127.0.0.1): judged as that IPv4 address.
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return isPublicIpv4(bytes.slice(12));
  return inBlock(bytes, IPV6_GLOBAL_UNICAST, ipv6Bytes) && !IPV6_NOT_PUBLIC.some((block) => inBlock(bytes, block, ipv6Bytes));
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Names that can only mean this machine or the inside network: every form of `localhost` (RFC 6761, with
 * or without the trailing dot, `localhost.localdomain`, Debian's `ip6-localhost` …) and the domains
 * reserved for local networks (`.local`, `.localdomain`, `.internal`, `.home.arpa`).
 */
export function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (['localhost', 'localhost6', 'ip6-localhost', 'ip6-loopback', 'localdomain', 'local', 'internal', 'home.arpa'].includes(name)) return true;
  return /\.(localhost|localdomain|local|internal|home\.arpa)$/.test(name) || /^localhost6?\./.test(name);
}

/** What the URL itself says: a literal non-public address or a local name. DNS is not asked. */
export function namesNonPublicHost(url: URL): boolean {
  const host = hostOf(url);
  if (isLocalName(host)) return true;
  return isIP(host) !== 0 && !isPublicAddress(host);
}

/** How a host name becomes addresses: the system resolver, or a stand-in. */
export type HostLookup = (host: string) => Promise<readonly { address: string }[]>;

export const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Every address the URL's host resolves to is public (checked just before each attempt). A lookup
 * that fails rejects: the caller must not take it for a public answer.
 */
export async function resolvesToPublicAddresses(url: URL, resolve: HostLookup = systemLookup): Promise<boolean> {
  if (namesNonPublicHost(url)) return false;
  const host = hostOf(url);
  if (isIP(host)) return true;
  const addresses = await resolve(host);
  return addresses.length > 0 && addresses.every(({ address }) => isPublicAddress(address));
}
