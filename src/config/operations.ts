// Health, metrics, shutdown and proxies (how the process behaves under an orchestrator or a load balancer), and the
// networks outbound requests may reach although special-use (src/outbound/).
import net from 'node:net';
import { canonicalCidr } from '../net/cidr.js';
import type { Reader } from './reader.js';

/** Health, metrics, shutdown and proxies: how the process behaves under an orchestrator or a load balancer. */
export interface OperationsSettings {
  /** Serves /metrics on this port instead of the main one; undefined keeps it on the main port. */
  readonly metricsPort: number | undefined;
  /** The interface of METRICS_PORT (defaults to HOST). */
  readonly metricsHost: string;
  /**
   * Without METRICS_PORT: the bearer token /metrics asks for on the main port. Unset, the main port serves /metrics
   * only on a loopback issuer (development); elsewhere it is not served there at all.
   */
  readonly metricsToken: string | undefined;
  /** After SIGTERM/SIGINT: how long to keep serving (with /readyz at 503) before the listener closes. */
  readonly shutdownDrainSeconds: number;
  /** Then: how long in-flight requests get to finish before their connections are cut. */
  readonly shutdownTimeoutSeconds: number;
  /**
   * Which proxies' X-Forwarded-For is believed (Fastify trustProxy): false, a hop count, or addresses and CIDRs.
   * It decides the client address the throttles and the risk evaluation see, and nothing else.
   */
  readonly trustProxy: false | number | readonly string[];
  /**
   * Strict-Transport-Security max-age (RFC 6797), sent on every response when BASE_URL is https; 0 sends none.
   * A browser that has seen it reaches the issuer over https only, even from a typed or linked http:// address.
   */
  readonly hstsMaxAgeSeconds: number;
}

/** Requests the provider sends to addresses it was given (src/outbound/). */
export interface OutboundSettings {
  /**
   * Networks (canonical CIDR blocks) that destinations of self-registered clients may be in although loopback,
   * private or otherwise special-use: OUTBOUND_ALLOW_NETWORKS, empty by default.
   */
  readonly allowNetworks: readonly string[];
}

/** OUTBOUND_ALLOW_NETWORKS. */
export function outboundSettings(reader: Reader): OutboundSettings {
  return Object.freeze({ allowNetworks: allowNetworks(reader) });
}

/** OUTBOUND_ALLOW_NETWORKS: comma-separated CIDR blocks (a bare address is a /32 or /128), in canonical form. */
function allowNetworks({ text, problems }: Reader): readonly string[] {
  const networks: string[] = [];
  for (const entry of text('OUTBOUND_ALLOW_NETWORKS')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const check = canonicalCidr(entry);
    if ('cidr' in check) networks.push(check.cidr);
    else problems.push(`OUTBOUND_ALLOW_NETWORKS: ${check.problem}`);
  }
  return Object.freeze(networks);
}

/** METRICS_PORT, METRICS_HOST, METRICS_TOKEN, SHUTDOWN_*, TRUST_PROXY, HSTS_MAX_AGE_SECONDS. */
export function operationsSettings(reader: Reader, { port, host }: { port: number; host: string }): OperationsSettings {
  const { text, integer, unsetInteger, problems } = reader;
  const metricsPort = unsetInteger('METRICS_PORT');
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port)
    problems.push('METRICS_PORT must differ from PORT (leave it empty to serve /metrics on PORT)');
  return Object.freeze({
    metricsPort,
    metricsHost: text('METRICS_HOST', host),
    metricsToken: metricsToken(reader),
    shutdownDrainSeconds: integer('SHUTDOWN_DRAIN_SECONDS'),
    shutdownTimeoutSeconds: integer('SHUTDOWN_TIMEOUT_SECONDS'),
    trustProxy: trustProxy(text('TRUST_PROXY'), problems),
    // One year, as Keycloak sends by default; at most two years.
    hstsMaxAgeSeconds: integer('HSTS_MAX_AGE_SECONDS'),
  });
}

/** METRICS_TOKEN: a bearer secret like the other secrets of the configuration (RFC 6750 b64token, 32 characters or more). */
function metricsToken({ text, problems }: Reader): string | undefined {
  const token = text('METRICS_TOKEN');
  if (token === '') return undefined;
  if (token.length < 32 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    problems.push('METRICS_TOKEN must be at least 32 characters of an RFC 6750 b64token (e.g. openssl rand -base64 32)');
  }
  return token;
}

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: empty, `false` or `0` trusts no proxy (the socket's address is the client's); a number trusts that
 * many hops of X-Forwarded-For; a comma list trusts proxies at those addresses or CIDRs. `true` (trust every
 * address) is refused: anyone could then choose the address the throttles count.
 */
function trustProxy(raw: string, problems: string[]): false | number | readonly string[] {
  if (raw === '' || raw.toLowerCase() === 'false' || raw === '0') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops <= 100) return hops;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0 || entries.length === 0) {
    problems.push(`TRUST_PROXY must be a hop count (1 to 100) or a comma list of addresses and CIDRs (got "${raw}")`);
    return false;
  }
  return Object.freeze(entries);
}

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
