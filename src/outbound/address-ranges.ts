// Which addresses a server-side request may not reach on behalf of a client that registered itself: this machine,
// private networks and the other special-use blocks of the IANA registries (RFC 6890), IPv4 and IPv6 alike.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ipv6Groups } from '../net/ip-prefix.js';

/** The kind of a refused block, as said in an error: "the address is private". */
export type RangeKind =
  'unspecified' | 'loopback' | 'private' | 'shared (CGNAT)' | 'link-local' | 'multicast' | 'reserved' | 'unique-local';

const IPV4_RANGES: readonly [string, number, RangeKind][] = [
  ['0.0.0.0', 8, 'unspecified'], // RFC 1122 3.2.1.3 "this network"; Linux connects 0.0.0.0 to itself
  ['10.0.0.0', 8, 'private'], // RFC 1918
  ['100.64.0.0', 10, 'shared (CGNAT)'], // RFC 6598
  ['127.0.0.0', 8, 'loopback'], // RFC 1122
  ['169.254.0.0', 16, 'link-local'], // RFC 3927; cloud metadata services answer at 169.254.169.254
  ['172.16.0.0', 12, 'private'], // RFC 1918
  ['192.168.0.0', 16, 'private'], // RFC 1918
  ['224.0.0.0', 4, 'multicast'], // RFC 5771
  ['240.0.0.0', 4, 'reserved'], // RFC 1112; 255.255.255.255 broadcast included
];

const IPV6_RANGES: readonly [string, number, RangeKind][] = [
  ['::', 128, 'unspecified'], // RFC 4291 2.5.2
  ['::1', 128, 'loopback'], // RFC 4291 2.5.3
  ['::', 96, 'reserved'], // RFC 4291 2.5.5.1: the deprecated IPv4-compatible addresses
  ['fc00::', 7, 'unique-local'], // RFC 4193
  ['fe80::', 10, 'link-local'], // RFC 4291 2.5.6
  ['fec0::', 10, 'reserved'], // RFC 3879: the deprecated site-local addresses
  ['ff00::', 8, 'multicast'], // RFC 4291 2.7
];

/** IPv6 prefixes whose last 32 bits are an IPv4 address that the packet ends up at: judged as that address. */
const IPV4_EMBEDDING = new BlockList();
IPV4_EMBEDDING.addSubnet('::ffff:0:0', 96, 'ipv6'); // RFC 4291 2.5.5.2 IPv4-mapped
IPV4_EMBEDDING.addSubnet('64:ff9b::', 96, 'ipv6'); // RFC 6052 2.1 NAT64 well-known prefix

function blockList(ranges: readonly [string, number, RangeKind][], family: 'ipv4' | 'ipv6'): [BlockList, RangeKind][] {
  return ranges.map(([network, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return [list, kind];
  });
}

// Built once from constants and never changed: not mutable state.
const IPV4_LISTS = blockList(IPV4_RANGES, 'ipv4');
const IPV6_LISTS = blockList(IPV6_RANGES, 'ipv6');

/** The address without IPv6 brackets or zone id; an IPv4-mapped or NAT64 IPv6 address as the IPv4 address it carries. */
export function effectiveAddress(address: string): string {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(plain) || !IPV4_EMBEDDING.check(plain, 'ipv6')) return plain;
  const groups = ipv6Groups(plain);
  // "::ffff:127.0.0.1" keeps its dotted tail; "::ffff:7f00:1" carries it in two hexadecimal groups.
  if (groups.at(-1)!.includes('.')) return groups.at(-1)!;
  const [high = 0, low = 0] = groups.slice(-2).map((g) => Number.parseInt(g || '0', 16));
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The refused block an IP address falls in, or undefined for a public address. Throws on a string that is no IP address. */
export function refusedRange(address: string): RangeKind | undefined {
  const ip = effectiveAddress(address);
  if (isIPv4(ip)) return IPV4_LISTS.find(([list]) => list.check(ip, 'ipv4'))?.[1];
  if (isIPv6(ip)) return IPV6_LISTS.find(([list]) => list.check(ip, 'ipv6'))?.[1];
  throw new TypeError('not an IP address');
}

/** Networks an operator allows (OUTBOUND_ALLOW_NETWORKS), as CIDR blocks in canonical form ("10.0.0.0/8", "fd00::/8"). */
export class AllowedNetworks {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [network = '', prefix = ''] = cidr.split('/');
      this.list.addSubnet(network, Number(prefix), isIPv4(network) ? 'ipv4' : 'ipv6');
    }
    this.size = cidrs.length;
  }

  /** The address, or the IPv4 address it carries, lies in an allowed network. */
  has(address: string): boolean {
    if (this.size === 0) return false;
    const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const ip = effectiveAddress(plain);
    if (isIPv4(ip) && this.list.check(ip, 'ipv4')) return true;
    return isIPv6(plain) && this.list.check(plain, 'ipv6');
  }
}

/**
 * Why a host must not be reached by a client that registered itself, judged from its text alone (at registration,
 * before any DNS): an IP literal in a refused block outside the allowed networks, or a name that is loopback by
 * definition (RFC 6761 6.3: "localhost." and names under it). Undefined when only resolving it can tell.
 */
export function refusedHostLiteral(hostname: string, allowed: AllowedNetworks): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'names this machine (localhost)';
  const ip = host.replace(/^\[|\]$/g, '');
  if (!isIPv4(ip) && !isIPv6(ip)) return undefined;
  const kind = refusedRange(ip);
  if (kind === undefined || allowed.has(ip)) return undefined;
  return `is a ${kind} address`;
}
