// DNS_RESOLVERS: the DNS servers the provider asks for TXT records (issue 40: a domain proven by `_sso-verify.{domain}`,
// src/outbound/dns-txt.ts); empty: the system's resolvers (/etc/resolv.conf).
import net from 'node:net';
import type { Reader } from './reader.js';

/**
 * DNS_RESOLVERS: comma-separated addresses, each with an optional port (`127.0.0.1:5353`, `[::1]:5353`, `::1`), in
 * the form node:dns `setServers` takes; host names are refused (a resolver is needed to find a resolver).
 */
export function dnsResolversSetting({ text, problems }: Reader): readonly string[] {
  const servers: string[] = [];
  for (const entry of text('DNS_RESOLVERS')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const server = dnsServer(entry);
    if (server) servers.push(server);
    else problems.push(`DNS_RESOLVERS: "${entry}" is not an IP address with an optional port (e.g. 127.0.0.1:5353 or [::1]:5353)`);
  }
  return Object.freeze(servers);
}

function dnsServer(entry: string): string | undefined {
  if (net.isIPv6(entry)) return `[${entry}]`;
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!m) return undefined;
  const address = m[1] ?? m[2]!;
  if (m[1] !== undefined ? !net.isIPv6(address) : !net.isIPv4(address)) return undefined;
  const port = m[3] === undefined ? undefined : Number(m[3]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const host = m[1] !== undefined ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}
