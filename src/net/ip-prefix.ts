// Client addresses reduced to the network they belong to, for counters and keys that must not single out
// one address (an IPv6 client usually holds a whole prefix).
import { isIPv4, isIPv6 } from 'node:net';

/** The address without an IPv6 zone id, and an IPv4-mapped IPv6 address as its IPv4 address. */
export function plainAddress(ip: string): string {
  const address = ip.replace(/%.*$/, ''); // a zone id names a local interface, not a client
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return mapped !== undefined && isIPv4(mapped) ? mapped : address;
}

/** The eight 16-bit groups of an IPv6 address, with "::" expanded (an embedded IPv4 tail counts as two). */
export function ipv6Groups(address: string): string[] {
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const gap = address.indexOf('::');
  if (gap === -1) return address.split(':');
  const left = gap === 0 ? [] : address.slice(0, gap).split(':');
  const right = gap + 2 === address.length ? [] : address.slice(gap + 2).split(':');
  return [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
}

/** The IPv4 network of `ipv4Bits` or the IPv6 network of `ipv6Groups16` groups, in CIDR notation. */
export function networkPrefix(ip: string, ipv4Bits: 24 | 32, ipv6Groups16: number): string {
  const address = plainAddress(ip);
  if (isIPv4(address)) {
    if (ipv4Bits === 32) return address;
    return `${address.split('.').slice(0, 3).join('.')}.0/24`;
  }
  if (!isIPv6(address)) return address || 'unknown';
  const groups = ipv6Groups(address)
    .slice(0, ipv6Groups16)
    .map((g) => Number.parseInt(g, 16).toString(16));
  return `${groups.join(':')}::/${ipv6Groups16 * 16}`;
}
