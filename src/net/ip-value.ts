// IP addresses as numbers: an IPv4 address as 32 bits, an IPv6 address as 128, and back to their RFC 5952 text, for
// prefix arithmetic (CIDR blocks, the special-use ranges of src/outbound/) that BlockList cannot do.
import { ipv6Groups } from './ip-prefix.js';

/** A dotted-quad IPv4 address (as isIPv4 accepts it) as a 32-bit number. */
export function ipv4Value(address: string): bigint {
  return address.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
}

export function ipv4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join('.');
}

/** An IPv6 address (as isIPv6 accepts it, without a zone id) as a 128-bit number; a dotted tail counts as 32 bits. */
export function ipv6Value(address: string): bigint {
  let n = 0n;
  for (const group of ipv6Groups(address)) {
    if (group.includes('.')) n = (n << 32n) | ipv4Value(group);
    else n = (n << 16n) | BigInt(Number.parseInt(group || '0', 16));
  }
  return n;
}

/** RFC 5952 4: lower case, no leading zeros, the longest run of two or more zero groups as "::". */
export function ipv6Text(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - i * 16)) & 0xffffn));
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start === -1) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
