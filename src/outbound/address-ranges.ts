// Which addresses a server-side request may not reach on behalf of a client that registered itself: this machine,
// private networks and the other special-use blocks of the IANA registries (RFC 6890), IPv4 and IPv6 alike, with
// every IPv6 form that carries an IPv4 address judged as that address or refused outright. docs/logout.md lists them.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ipv4Text, ipv4Value, ipv6Value } from '../net/ip-value.js';

/** The kind of a refused block, as said in an error: "the address is private". */
export type RangeKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared (CGNAT)'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'documentation'
  | 'benchmarking'
  | 'special-purpose';

/** [block, kind, where it is defined]. The longest block that holds an address decides. */
type Range = readonly [cidr: string, kind: RangeKind, source: string];

/**
 * The IANA IPv4 Special-Purpose Address Registry (RFC 6890 2.2.2, as updated) less its globally reachable entries
 * (AS112 192.31.196.0/24 and 192.175.48.0/24, AMT 192.52.193.0/24), plus multicast (RFC 5771).
 */
export const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0/8', 'unspecified', 'RFC 791 "this network"; Linux connects 0.0.0.0 to itself'],
  ['10.0.0.0/8', 'private', 'RFC 1918'],
  ['100.64.0.0/10', 'shared (CGNAT)', 'RFC 6598'],
  ['127.0.0.0/8', 'loopback', 'RFC 1122 3.2.1.3'],
  ['169.254.0.0/16', 'link-local', 'RFC 3927; cloud metadata services answer at 169.254.169.254'],
  ['172.16.0.0/12', 'private', 'RFC 1918'],
  ['192.0.0.0/24', 'special-purpose', 'RFC 6890 2.1 IETF protocol assignments (DS-Lite, NAT64 discovery, ...)'],
  ['192.0.2.0/24', 'documentation', 'RFC 5737 TEST-NET-1'],
  ['192.88.99.0/24', 'special-purpose', 'RFC 7526: the deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private', 'RFC 1918'],
  ['198.18.0.0/15', 'benchmarking', 'RFC 2544'],
  ['198.51.100.0/24', 'documentation', 'RFC 5737 TEST-NET-2'],
  ['203.0.113.0/24', 'documentation', 'RFC 5737 TEST-NET-3'],
  ['224.0.0.0/4', 'multicast', 'RFC 5771'],
  ['240.0.0.0/4', 'reserved', 'RFC 1112 4'],
  ['255.255.255.255/32', 'broadcast', 'RFC 919 7 limited broadcast'],
];

/**
 * IPv6 blocks whose packets end up at an IPv4 address written into the IPv6 one: the address is judged as that IPv4
 * address (bits `at` to `at + 31`). [block, at, where it is defined].
 */
export const IPV4_CARRIERS: readonly (readonly [cidr: string, at: number, source: string])[] = [
  ['::ffff:0:0/96', 96, 'RFC 4291 2.5.5.2 IPv4-mapped: a dual-stack socket sends it as IPv4'],
  ['64:ff9b::/96', 96, 'RFC 6052 2.1 NAT64 well-known prefix; 3.1: never with a non-global IPv4 address'],
  ['2002::/16', 16, "RFC 3056 2 6to4: the site's IPv4 address in bits 16 to 47"],
];

/**
 * The IANA IPv6 Special-Purpose Address Registry (RFC 6890 2.2.3, as updated) less its globally reachable entries,
 * plus the IPv6 Address Space registry's blocks that are no global unicast. The forms that carry an IPv4 address but
 * are not in IPV4_CARRIERS are refused outright: where the IPv4 address sits, or who translates it, is not known.
 */
export const IPV6_RANGES: readonly Range[] = [
  ['::/128', 'unspecified', 'RFC 4291 2.5.2'],
  ['::1/128', 'loopback', 'RFC 4291 2.5.3'],
  ['::/96', 'reserved', 'RFC 4291 2.5.5.1: the deprecated IPv4-compatible addresses, refused outright'],
  ['::ffff:0:0:0/96', 'special-purpose', 'RFC 2765 2.1 IPv4-translated (SIIT, dropped by RFC 6145): refused outright'],
  ['64:ff9b:1::/48', 'special-purpose', 'RFC 8215 local-use NAT64: the IPv4 address sits where the operator chose (RFC 6052 2.2)'],
  ['100::/64', 'special-purpose', 'RFC 6666 discard-only'],
  ['100:0:0:1::/64', 'special-purpose', 'RFC 9780 dummy prefix'],
  ['2001::/23', 'special-purpose', 'RFC 2928 IETF protocol assignments, Teredo 2001::/32 (RFC 4380) included'],
  ['2001:db8::/32', 'documentation', 'RFC 3849'],
  ['3fff::/20', 'documentation', 'RFC 9637'],
  ['5f00::/16', 'special-purpose', 'RFC 9602 SRv6 SIDs'],
  ['fc00::/7', 'unique-local', 'RFC 4193'],
  ['fe80::/10', 'link-local', 'RFC 4291 2.5.6'],
  ['fec0::/10', 'reserved', 'RFC 3879: the deprecated site-local addresses'],
  ['ff00::/8', 'multicast', 'RFC 4291 2.7'],
  // RFC 4291 2.4 / the IANA IPv6 Address Space registry: only 2000::/3 is global unicast; the rest of the space is
  // reserved by the IETF (its special blocks, above, are longer and decide first).
  ['::/3', 'reserved', 'IANA IPv6 Address Space: reserved by the IETF'],
  ['4000::/2', 'reserved', 'IANA IPv6 Address Space: reserved by the IETF'],
  ['8000::/1', 'reserved', 'IANA IPv6 Address Space: reserved by the IETF'],
];

interface Block {
  network: bigint;
  prefix: number;
}

function block(cidr: string, width: 32 | 128): Block {
  const [address = '', bits = ''] = cidr.split('/');
  return { network: width === 32 ? ipv4Value(address) : ipv6Value(address), prefix: Number(bits) };
}

const holds = (b: Block, value: bigint, width: 32 | 128) => value >> BigInt(width - b.prefix) === b.network >> BigInt(width - b.prefix);

/** Longest block first, so that the first block that holds an address is the one that decides. */
function table(ranges: readonly Range[], width: 32 | 128): (Block & { kind: RangeKind })[] {
  return ranges.map(([cidr, kind]) => ({ ...block(cidr, width), kind })).sort((a, b) => b.prefix - a.prefix);
}

// Built once from constants and never changed: not mutable state.
const IPV4_TABLE = table(IPV4_RANGES, 32);
const IPV6_TABLE = table(IPV6_RANGES, 128);
const CARRIERS = IPV4_CARRIERS.map(([cidr, at]) => ({ ...block(cidr, 128), at }));

/** The address without IPv6 brackets or zone id (a zone names an interface of this machine, not a destination). */
function plain(address: string): string {
  return address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

/** The IPv4 address an IPv6 address of IPV4_CARRIERS takes its packets to, or undefined. */
export function carriedIpv4(address: string): string | undefined {
  const ip = plain(address);
  if (!isIPv6(ip)) return undefined;
  const value = ipv6Value(ip);
  const carrier = CARRIERS.find((c) => holds(c, value, 128));
  return carrier && ipv4Text((value >> BigInt(128 - carrier.at - 32)) & 0xffffffffn);
}

/** The refused block an IP address falls in, or undefined for a public address. Throws on a string that is no IP address. */
export function refusedRange(address: string): RangeKind | undefined {
  const ip = plain(address);
  if (isIPv4(ip)) {
    const value = ipv4Value(ip);
    return IPV4_TABLE.find((b) => holds(b, value, 32))?.kind;
  }
  if (!isIPv6(ip)) throw new TypeError('not an IP address');
  const carried = carriedIpv4(ip);
  if (carried !== undefined) return refusedRange(carried);
  const value = ipv6Value(ip);
  return IPV6_TABLE.find((b) => holds(b, value, 128))?.kind;
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

  /**
   * The address lies in an allowed network; an IPv4-mapped address, which is the same destination, when its IPv4
   * address does. A NAT64 or 6to4 address goes through a translator or a relay: only an allowed IPv6 block lets it in.
   */
  has(address: string): boolean {
    if (this.size === 0) return false;
    const ip = plain(address);
    if (isIPv4(ip)) return this.list.check(ip, 'ipv4');
    if (!isIPv6(ip)) return false;
    const value = ipv6Value(ip);
    if (value >> 32n === 0xffffn && this.list.check(ipv4Text(value & 0xffffffffn), 'ipv4')) return true;
    return this.list.check(ip, 'ipv6');
  }
}

/**
 * Why a host must not be reached by a client that registered itself, judged from its text alone (at registration,
 * before any DNS): an IP literal in a refused block outside the allowed networks, or a name that is loopback by
 * definition (RFC 6761 6.3: "localhost." and names under it). Undefined when only resolving it can tell. The host is
 * URL.hostname's: WHATWG URL parsing has already turned 0x7f.1, 2130706433 or 0177.0.0.1 into 127.0.0.1.
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
