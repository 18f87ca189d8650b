// The one way the provider sends a request to an address it was given (back-channel logout URIs, the notifier
// webhook; later jwks_uri, sector_identifier_uri and upstream providers): resolved once and checked against the
// destination's policy, connected to the checked address only (on a new connection, or on one an OutboundPool kept
// to that host at that address), never redirected, bounded in time and in size.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import { refusedRange, type AllowedNetworks } from './address-ranges.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (all of them: a host is refused when any one of them is). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), as the rest of the process would resolve the name. */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** What guardedFetch needs from the process, injected through buildApp's deps (never module state). */
export interface OutboundDeps {
  readonly resolve: Resolver;
  /** Certificates trusted on top of Node's root store (tests: a local test CA). */
  readonly extraCa: readonly string[];
  /** Keep-alive connections to reuse (OutboundPool); without one, every request has a connection of its own. */
  readonly pool?: OutboundPool | undefined;
}

export const systemOutbound: OutboundDeps = Object.freeze({ resolve: systemResolver, extraCa: Object.freeze([]) });

/** Where a destination may be: see policyFor (src/outbound/policy.ts). */
export interface OutboundPolicy {
  /** Plain http is refused (https only). */
  readonly httpsOnly: boolean;
  /** Loopback, private and other special-use addresses, and the provider's own, are refused unless allowed. */
  readonly publicAddressesOnly: boolean;
  /** Networks reached even with publicAddressesOnly (OUTBOUND_ALLOW_NETWORKS). */
  readonly allowed: AllowedNetworks;
  /** The issuer's host name: its addresses are the provider's own. */
  readonly ownHost: string;
}

/** How many destinations an OutboundPool keeps connections to; the one used least recently is let go first. */
const POOL_DESTINATIONS = 32;
/** Connections open at once to one destination; more requests wait for one (within their timeout). */
const POOL_SOCKETS_PER_DESTINATION = 64;
/** Idle connections kept per destination. */
const POOL_IDLE_SOCKETS_PER_DESTINATION = 16;
/** An idle connection is closed after this long, or a second before the server's own Keep-Alive timeout if sooner. */
const POOL_IDLE_MS = 4000;

/** A keep-alive agent that can be retired: its idle connections close now, its busy ones once their answer is read. */
interface DestinationAgent {
  readonly agent: http.Agent;
  retire(): void;
}

function destinationAgent(secure: boolean): DestinationAgent {
  const options: http.AgentOptions = {
    keepAlive: true,
    maxSockets: POOL_SOCKETS_PER_DESTINATION,
    maxFreeSockets: POOL_IDLE_SOCKETS_PER_DESTINATION,
    timeout: POOL_IDLE_MS,
    scheduling: 'lifo',
  };
  const agent = secure ? new https.Agent(options) : new http.Agent(options);
  let retired = false;
  const keep = agent.keepSocketAlive.bind(agent);
  // Node returns whether it keeps the socket (its types say void).
  agent.keepSocketAlive = (socket) => !retired && (keep(socket) as unknown) === true;
  return {
    agent,
    retire() {
      retired = true;
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    },
  };
}

/**
 * Keep-alive connections for guardedFetch, one agent per destination: the scheme, the host, the port and the
 * addresses that host was resolved to and checked against the policy. A request looks up its agent only after its own
 * resolution and check, by the addresses it checked: a pooled connection is one opened to an address this very request
 * has just checked, for the same host (the certificate was verified for that name), so reusing it reaches nothing that
 * a new connection would not. A host that resolves elsewhere meanwhile gets another agent and a new connection; one
 * that now resolves to a refused address is refused before any agent is looked at. Bounded in destinations and in
 * connections; close() lets every connection go (the webhook job closes its pool when it stops).
 */
export class OutboundPool {
  private readonly agents = new Map<string, DestinationAgent>();
  private closed = false;

  /** The agent of this destination, or undefined once the pool is closed (the request then has a connection of its own). */
  agentFor(url: URL, host: string, addresses: readonly ResolvedAddress[]): http.Agent | undefined {
    if (this.closed) return undefined;
    const key = JSON.stringify([url.protocol, host, url.port, addresses.map((a) => a.address).sort()]);
    let destination = this.agents.get(key);
    if (destination) this.agents.delete(key);
    else {
      destination = destinationAgent(url.protocol === 'https:');
      for (const [old, oldest] of this.agents) {
        if (this.agents.size < POOL_DESTINATIONS) break;
        oldest.retire();
        this.agents.delete(old);
      }
    }
    // Most recently used last: a Map iterates in insertion order.
    this.agents.set(key, destination);
    return destination.agent;
  }

  close(): void {
    this.closed = true;
    for (const agent of this.agents.values()) agent.retire();
    this.agents.clear();
  }
}

export interface OutboundRequest {
  readonly url: string | URL;
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Covers the lookup, the connection, the request and the whole response. */
  readonly timeoutMs: number;
  /** A response body larger than this aborts the request. */
  readonly maxResponseBytes: number;
}

export interface OutboundResponse {
  /** A 3xx is returned as it is: a redirect is never followed. */
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export type OutboundErrorCode = 'bad-url' | 'scheme' | 'refused-address' | 'resolve' | 'timeout' | 'too-large' | 'connection';

/** Why a request was not sent or not answered, in words safe to log: the host, never the request's body or headers. */
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** Sends one request under `policy` and reads its answer; throws OutboundError for every failure. */
export async function guardedFetch(request: OutboundRequest, policy: OutboundPolicy, deps: OutboundDeps): Promise<OutboundResponse> {
  const url = parseUrl(request.url, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const deadline = Date.now() + request.timeoutMs;
  const checked = async () => {
    const addresses = await resolveHost(host, deps.resolve);
    if (policy.publicAddressesOnly) await checkAddresses(host, addresses, policy, deps.resolve);
    return addresses;
  };
  const addresses = await withDeadline(checked(), deadline, host);
  const agent = deps.pool?.agentFor(url, host, addresses);
  try {
    return await send(url, host, addresses, request, deadline, deps, agent);
  } catch (err) {
    // A kept connection the server closed meanwhile: once more, on a connection of its own.
    if (err instanceof StaleConnection) return send(url, host, addresses, request, deadline, deps, undefined);
    throw err;
  }
}

/** A reused keep-alive connection failed before any answer: the server had closed it while it was idle. */
class StaleConnection extends Error {}

function parseUrl(raw: string | URL, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('bad-url', 'the URL is not absolute');
  }
  if (url.protocol !== 'https:' && (url.protocol !== 'http:' || policy.httpsOnly)) {
    throw new OutboundError('scheme', policy.httpsOnly ? 'the URL must use https' : 'the URL must use http or https');
  }
  if (url.username || url.password) throw new OutboundError('bad-url', 'the URL must not carry credentials');
  return url;
}

async function resolveHost(host: string, resolve: Resolver): Promise<readonly ResolvedAddress[]> {
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new OutboundError('resolve', `${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw new OutboundError('resolve', `${host} could not be resolved`);
  return addresses;
}

/** Every address must pass: a name that resolves to one public and one private address is refused. */
async function checkAddresses(
  host: string,
  addresses: readonly ResolvedAddress[],
  policy: OutboundPolicy,
  resolve: Resolver,
): Promise<void> {
  const own = await ownAddresses(policy.ownHost, resolve);
  for (const { address, family } of addresses) {
    if (policy.allowed.has(address)) continue;
    const kind = refusedRange(address);
    if (kind !== undefined) throw new OutboundError('refused-address', `the address is ${kind} (${host} is ${address})`);
    if (own.check(address, family === 6 ? 'ipv6' : 'ipv4')) {
      throw new OutboundError('refused-address', `the address is the provider's own (${host} is ${address})`);
    }
  }
}

/** The addresses of this machine's interfaces and of the issuer's host name (which may be a load balancer in front). */
async function ownAddresses(ownHost: string, resolve: Resolver): Promise<BlockList> {
  const list = new BlockList();
  for (const nic of Object.values(os.networkInterfaces()).flat()) {
    if (nic) list.addAddress(nic.address.replace(/%.*$/, ''), nic.family === 'IPv6' ? 'ipv6' : 'ipv4');
  }
  const host = ownHost.replace(/^\[|\]$/g, '');
  const issuerAddresses = await resolveHost(host, resolve).catch(() => []);
  for (const { address, family } of issuerAddresses) list.addAddress(address, family === 6 ? 'ipv6' : 'ipv4');
  return list;
}

async function withDeadline<T>(work: Promise<T>, deadline: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutboundError('timeout', `${host} did not answer in time`)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The connection goes to the addresses that were checked, whatever the name resolves to by then (no DNS rebinding). */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = addresses.filter((a) => !options.family || a.family === options.family);
    const usable = wanted.length > 0 ? wanted : addresses;
    if (options.all)
      callback(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
}

function send(
  url: URL,
  host: string,
  addresses: readonly ResolvedAddress[],
  request: OutboundRequest,
  deadline: number,
  deps: OutboundDeps,
  agent: http.Agent | undefined,
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const options: https.RequestOptions = {
      method: request.method,
      hostname: host,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      // A connection of its own, or one of the pool's to this host at these checked addresses (OutboundPool): never a
      // socket connected elsewhere for another request.
      agent: agent ?? false,
      lookup: pinnedLookup(addresses),
      // The certificate is checked against the name in the URL, not against the address connected to.
      ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      ...(secure && deps.extraCa.length > 0 ? { ca: [...tls.rootCertificates, ...deps.extraCa] } : {}),
    };
    let answered = false;
    const req = (secure ? https : http).request(options, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > request.maxResponseBytes) {
          req.destroy(new OutboundError('too-large', `${host} answered with more than ${request.maxResponseBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', fail);
    });
    const timer = setTimeout(
      () => req.destroy(new OutboundError('timeout', `${host} did not answer in time`)),
      Math.max(0, deadline - Date.now()),
    );
    function fail(err: Error) {
      clearTimeout(timer);
      if (err instanceof OutboundError) return reject(err);
      const code = (err as { code?: unknown }).code;
      if (req.reusedSocket && !answered && (code === 'ECONNRESET' || code === 'EPIPE')) return reject(new StaleConnection());
      reject(new OutboundError('connection', `the connection to ${host} failed${typeof code === 'string' ? ` (${code})` : ''}`));
    }
    req.on('error', fail);
    req.end(body);
  });
}
