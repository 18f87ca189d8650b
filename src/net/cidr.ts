// Network rules name a CIDR block. PostgreSQL's cidr type refuses host bits and the sign-in statement casts every
// stored value, so a value is checked and written in one canonical form before it is stored.
import { isIPv4, isIPv6 } from 'node:net';
import { ipv6Groups } from './ip-prefix.js';

export type CidrCheck = { cidr: string } | { problem: string };

/**
 * "203.0.113.0/24", "2001:db8::/32", or a bare address (a /32 or /128). Returns the canonical form (IPv6
 * compressed, lower case), or what is wrong with it.
 */
export function canonicalCidr(value: string): CidrCheck {
  const [address = '', bits, ...rest] = value.trim().split('/');
  if (rest.length > 0 || address.includes('%'))
    return { problem: `"${value}" is not a CIDR block such as 203.0.113.0/24 or 2001:db8::/32` };
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) return { problem: `"${value}" is not a CIDR block such as 203.0.113.0/24 or 2001:db8::/32` };
  if (!v4 && /^::ffff:\d/i.test(address)) return { problem: `"${value}" is an IPv4-mapped address: write the IPv4 block instead` };
  const width = v4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits))
    return { problem: `"${value}": the prefix length must be a number from 0 to ${width}` };
  const prefix = bits === undefined ? width : Number(bits);
  if (prefix > width) return { problem: `"${value}": the prefix length must be a number from 0 to ${width}` };

  const value128 = v4 ? ipv4Value(address) : ipv6Value(address);
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(width - prefix);
  const network = value128 & mask;
  const text = v4 ? ipv4Text(network) : ipv6Text(network);
  if (network !== value128) return { problem: `"${value}" has bits set after the /${prefix} prefix: did you mean ${text}/${prefix}?` };
  return { cidr: `${text}/${prefix}` };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
}

function ipv4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join('.');
}

function ipv6Value(address: string): bigint {
  let n = 0n;
  for (const group of ipv6Groups(address)) {
    if (group.includes('.')) n = (n << 32n) | ipv4Value(group);
    else n = (n << 16n) | BigInt(Number.parseInt(group || '0', 16));
  }
  return n;
}

/** RFC 5952 4: lower case, no leading zeros, the longest run of two or more zero groups as "::". */
function ipv6Text(n: bigint): string {
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
