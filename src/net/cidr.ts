// Network rules name a CIDR block. PostgreSQL's cidr type refuses host bits and the sign-in statement casts every
// stored value, so a value is checked and written in one canonical form before it is stored.
import { isIPv4, isIPv6 } from 'node:net';
import { ipv4Text, ipv4Value, ipv6Text, ipv6Value } from './ip-value.js';

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
