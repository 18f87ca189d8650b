// The keep-alive pool of the guarded fetch (OutboundPool, the webhook job's): a kept connection is reused only for
// the same host at the same addresses the request itself has just resolved and checked, so it never reaches an
// address that a new connection would not; an address refused now is refused whatever connection is kept to it.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t, { type Test } from 'tap';
import { AllowedNetworks } from '../../../src/outbound/address-ranges.js';
import { guardedFetch, OutboundError, OutboundPool, type OutboundPolicy, type Resolver } from '../../../src/outbound/guarded-fetch.js';

const OPERATOR: OutboundPolicy = { httpsOnly: false, publicAddressesOnly: false, allowed: new AllowedNetworks([]), ownHost: 'localhost' };
/** Public addresses only, but for 127.0.0.1 (OUTBOUND_ALLOW_NETWORKS); plain http, as a loopback issuer allows. */
const STRICT_BUT_LOOPBACK: OutboundPolicy = { ...OPERATOR, publicAddressesOnly: true, allowed: new AllowedNetworks(['127.0.0.1/32']) };
const STRICT: OutboundPolicy = { ...OPERATOR, publicAddressesOnly: true };

interface Receiver {
  /** Each request as it came: the connection it came on (numbered by the receiver in order of arrival). */
  requests: number[];
  connections: number;
  server: http.Server;
}

function receiver(
  t: Test,
  handler: (req: http.IncomingMessage, res: http.ServerResponse, served: number) => void = (_q, res) => res.writeHead(204).end(),
) {
  const r: Receiver = { requests: [], connections: 0, server: http.createServer() };
  const numbers = new WeakMap<Socket, { n: number; served: number }>();
  r.server.on('connection', (socket: Socket) => numbers.set(socket, { n: (r.connections += 1), served: 0 }));
  r.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const connection = numbers.get(req.socket)!;
    r.requests.push(connection.n);
    req.resume();
    req.on('end', () => handler(req, res, connection.served++));
  });
  t.teardown(() => {
    r.server.closeAllConnections();
    return new Promise<void>((resolve) => r.server.close(() => resolve()));
  });
  return r;
}

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Two receivers at one port, on 127.0.0.1 and on ::1: one host name may resolve to either. */
async function twoAddresses(t: Test): Promise<{ port: number; v4: Receiver; v6: Receiver }> {
  for (let tries = 0; ; tries += 1) {
    const v4 = receiver(t);
    const v6 = receiver(t);
    const port = await listen(v4.server, '127.0.0.1', 0);
    try {
      await listen(v6.server, '::1', port);
      return { port, v4, v6 };
    } catch (err) {
      if (tries >= 5) throw err;
    }
  }
}

/** A resolver whose answer the test changes as it goes. */
function switchable(initial: Record<string, string>): Resolver & { answers: Record<string, string> } {
  const answers = { ...initial };
  const resolve: Resolver = async (hostname) => {
    const address = answers[hostname];
    if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return Object.assign(resolve, { answers });
}

function post(url: string) {
  return {
    url,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    timeoutMs: 2000,
    maxResponseBytes: 1024,
  };
}

async function refusal(t: Test, work: Promise<unknown>): Promise<OutboundError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, OutboundError);
  return err as OutboundError;
}

t.test('a kept connection is reused for the same host at the same checked address', async (t) => {
  const r = receiver(t);
  const port = await listen(r.server, '127.0.0.1', 0);
  const pool = new OutboundPool();
  t.teardown(() => pool.close());
  const deps = { resolve: switchable({ 'hooks.test': '127.0.0.1' }), extraCa: [], pool };
  for (let i = 0; i < 3; i += 1) t.equal((await guardedFetch(post(`http://hooks.test:${port}/in`), OPERATOR, deps)).status, 204);
  t.same(r.requests, [1, 1, 1], 'three requests on one connection');
});

t.test('the pool never reuses a connection for another checked address of the same host', async (t) => {
  const { port, v4, v6 } = await twoAddresses(t);
  const pool = new OutboundPool();
  t.teardown(() => pool.close());
  const resolve = switchable({ 'hooks.test': '127.0.0.1' });
  const deps = { resolve, extraCa: [], pool };
  const url = `http://hooks.test:${port}/in`;
  await guardedFetch(post(url), OPERATOR, deps);
  resolve.answers['hooks.test'] = '::1';
  await guardedFetch(post(url), OPERATOR, deps);
  await guardedFetch(post(url), OPERATOR, deps);
  t.same(v6.requests, [1, 1], 'the host now resolved to ::1 is reached at ::1, on a connection of its own');
  t.same(v4.requests, [1], 'and the connection kept to 127.0.0.1 is not used for it');
  resolve.answers['hooks.test'] = '127.0.0.1';
  await guardedFetch(post(url), OPERATOR, deps);
  t.same(v4.requests, [1, 1], 'back at 127.0.0.1, its own kept connection again');
});

t.test('the pool never reuses a connection for another host at the same address', async (t) => {
  const r = receiver(t);
  const port = await listen(r.server, '127.0.0.1', 0);
  const pool = new OutboundPool();
  t.teardown(() => pool.close());
  const deps = { resolve: switchable({ 'a.test': '127.0.0.1', 'b.test': '127.0.0.1' }), extraCa: [], pool };
  await guardedFetch(post(`http://a.test:${port}/in`), OPERATOR, deps);
  await guardedFetch(post(`http://b.test:${port}/in`), OPERATOR, deps);
  await guardedFetch(post(`http://a.test:${port}/in`), OPERATOR, deps);
  t.same(r.requests, [1, 2, 1], 'a connection per host name');
});

t.test('an address refused now is refused, though a connection to it is kept open', async (t) => {
  const { port, v4, v6 } = await twoAddresses(t);
  const pool = new OutboundPool();
  t.teardown(() => pool.close());
  const resolve = switchable({ 'hooks.test': '127.0.0.1' });
  const deps = { resolve, extraCa: [], pool };
  const url = `http://hooks.test:${port}/in`;
  t.equal((await guardedFetch(post(url), STRICT_BUT_LOOPBACK, deps)).status, 204, 'allowed: 127.0.0.1 is in an allowed network');
  const refused = await refusal(t, guardedFetch(post(url), STRICT, deps));
  t.equal(refused.code, 'refused-address', 'the same host at the same address under a policy that refuses it');
  resolve.answers['hooks.test'] = '::1';
  const moved = await refusal(t, guardedFetch(post(url), STRICT_BUT_LOOPBACK, deps));
  t.equal(moved.code, 'refused-address', 'the host moved to an address the policy refuses');
  t.same(v4.requests, [1], 'nothing more was sent on the kept connection');
  t.same(v6.requests, [], 'nor to the refused address');
});

t.test('a kept connection the receiver closed is replaced by a new one, and the request still arrives', async (t) => {
  // A receiver that drops every connection on its second request, as one that closes idle connections does.
  const r = receiver(t, (req, res, served) => (served === 0 ? res.writeHead(204).end() : req.socket.destroy()));
  const port = await listen(r.server, '127.0.0.1', 0);
  const pool = new OutboundPool();
  t.teardown(() => pool.close());
  const deps = { resolve: switchable({ 'hooks.test': '127.0.0.1' }), extraCa: [], pool };
  await guardedFetch(post(`http://hooks.test:${port}/in`), OPERATOR, deps);
  t.equal((await guardedFetch(post(`http://hooks.test:${port}/in`), OPERATOR, deps)).status, 204);
  t.same(r.requests, [1, 1, 2], 'tried on the kept connection, then on a new one');
});

t.test('a closed pool keeps no connection open', async (t) => {
  const r = receiver(t);
  const port = await listen(r.server, '127.0.0.1', 0);
  const pool = new OutboundPool();
  const deps = { resolve: switchable({ 'hooks.test': '127.0.0.1' }), extraCa: [], pool };
  await guardedFetch(post(`http://hooks.test:${port}/in`), OPERATOR, deps);
  pool.close();
  const open = async () => new Promise<number>((resolve) => r.server.getConnections((_err, n) => resolve(n)));
  for (let i = 0; i < 50 && (await open()) > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(await open(), 0, 'the kept connection is closed');
  await guardedFetch(post(`http://hooks.test:${port}/in`), OPERATOR, deps);
  t.same(r.requests, [1, 2], 'a request after close goes on a connection of its own');
});
