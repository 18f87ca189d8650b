// The one guarded way out (src/outbound/guarded-fetch.ts) against servers on 127.0.0.1: redirects are answers, not
// followed; the wait and the size are bounded; the connection goes to the address that was checked; the strict
// policy of self-registered clients wants https and public addresses (or an allowed network).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { AllowedNetworks } from '../../src/outbound/address-ranges.js';
import { guardedFetch, OutboundError, type OutboundPolicy, type Resolver } from '../../src/outbound/guarded-fetch.js';
import { testCertificate } from '../helpers/tls.js';

const NAME = 'rp.example.test';
const CERT = testCertificate([NAME]);

const OPERATOR: OutboundPolicy = { httpsOnly: false, publicAddressesOnly: false, allowed: new AllowedNetworks([]), ownHost: 'localhost' };
const STRICT: OutboundPolicy = { ...OPERATOR, httpsOnly: true, publicAddressesOnly: true };

interface Server {
  port: number;
  hits: string[];
}

async function serve(t: Test, handler: http.RequestListener, secure = false): Promise<Server> {
  const hits: string[] = [];
  const listener: http.RequestListener = (req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  };
  const server = secure ? https.createServer({ cert: CERT.cert, key: CERT.key }, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, hits };
}

/** A resolver from a table, counting its calls per name; an unknown name fails like DNS would. */
function resolver(table: Record<string, string[][]>): Resolver & { calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const resolve = async (hostname: string) => {
    const n = (calls[hostname] = (calls[hostname] ?? 0) + 1);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    const answer = answers[Math.min(n, answers.length) - 1]!;
    return answer.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

const deps = (resolve: Resolver) => ({ resolve, extraCa: [CERT.cert] });
const post = (url: string, extra: Partial<{ timeoutMs: number; maxResponseBytes: number }> = {}) => ({
  url,
  method: 'POST' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: 'logout_token=x',
  timeoutMs: 2000,
  maxResponseBytes: 1024,
  ...extra,
});

async function refusal(t: Test, work: Promise<unknown>): Promise<OutboundError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, OutboundError);
  return err as OutboundError;
}

t.test('a 3xx is an answer: the redirect is not followed (Back-Channel Logout 1.0 2.8)', async (t) => {
  const target = await serve(t, (_req, res) => res.end('ok'));
  const redirecting = await serve(t, (_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${target.port}/internal` }).end());
  const response = await guardedFetch(post(`http://127.0.0.1:${redirecting.port}/bc`), OPERATOR, deps(resolver({})));
  t.equal(response.status, 307);
  t.same(redirecting.hits, ['/bc']);
  t.same(target.hits, [], 'the redirect target got no request');
});

t.test('a server that does not answer is given up after the timeout', async (t) => {
  const hanging = await serve(t, () => undefined);
  const started = Date.now();
  const err = await refusal(t, guardedFetch(post(`http://127.0.0.1:${hanging.port}/bc`, { timeoutMs: 300 }), OPERATOR, deps(resolver({}))));
  t.equal(err.code, 'timeout');
  t.ok(Date.now() - started < 1500, 'within the timeout, not the socket default');
});

t.test('a response larger than the cap is cut off', async (t) => {
  const big = await serve(t, (_req, res) => res.end(Buffer.alloc(64 * 1024, 'a')));
  const err = await refusal(t, guardedFetch(post(`http://127.0.0.1:${big.port}/bc`), OPERATOR, deps(resolver({}))));
  t.equal(err.code, 'too-large');
  const small = await serve(t, (_req, res) => res.end('fine'));
  t.equal((await guardedFetch(post(`http://127.0.0.1:${small.port}/bc`), OPERATOR, deps(resolver({})))).body.toString(), 'fine');
});

t.test('the name is resolved once and the connection goes to the checked address (no DNS rebinding)', async (t) => {
  const server = await serve(t, (_req, res) => res.end());
  // The first answer is the one checked; any later one would point elsewhere. The system resolver knows no such name.
  const resolve = resolver({ [NAME]: [['127.0.0.1'], ['10.9.9.9']] });
  const response = await guardedFetch(post(`http://${NAME}:${server.port}/bc`), OPERATOR, deps(resolve));
  t.equal(response.status, 200);
  t.equal(resolve.calls[NAME], 1, 'resolved once');
  t.same(server.hits, ['/bc']);
});

t.test('https: the certificate is checked against the name in the URL, not the address connected to', async (t) => {
  const server = await serve(t, (_req, res) => res.writeHead(204).end(), true);
  const resolve = resolver({ [NAME]: [['127.0.0.1']], 'other.example.test': [['127.0.0.1']] });
  const allowed: OutboundPolicy = { ...STRICT, allowed: new AllowedNetworks(['127.0.0.0/8']) };
  t.equal((await guardedFetch(post(`https://${NAME}:${server.port}/bc`), allowed, deps(resolve))).status, 204);
  const err = await refusal(t, guardedFetch(post(`https://other.example.test:${server.port}/bc`), allowed, deps(resolve)));
  t.equal(err.code, 'connection');
  t.match(err.message, /ERR_TLS_CERT_ALTNAME_INVALID/);
});

t.test('the strict policy refuses plain http before any lookup', async (t) => {
  const resolve = resolver({ [NAME]: [['93.184.216.34']] });
  const err = await refusal(t, guardedFetch(post(`http://${NAME}/bc`), STRICT, deps(resolve)));
  t.equal(err.code, 'scheme');
  t.same(resolve.calls, {});
});

t.test('the strict policy refuses a name when any of its addresses is loopback, private or link-local', async (t) => {
  const server = await serve(t, (_req, res) => res.end(), true);
  for (const [addresses, kind] of [
    [['127.0.0.1'], 'loopback'],
    [['93.184.216.34', '10.0.0.5'], 'private'],
    [['169.254.169.254'], 'link-local'],
    [['::ffff:127.0.0.1'], 'loopback'],
    [['fd00::1'], 'unique-local'],
  ] as const) {
    const resolve = resolver({ [NAME]: [[...addresses]] });
    const err = await refusal(t, guardedFetch(post(`https://${NAME}:${server.port}/bc`), STRICT, deps(resolve)));
    t.equal(err.code, 'refused-address');
    t.match(err.message, `the address is ${kind}`);
  }
  const literal = await refusal(t, guardedFetch(post(`https://[::1]:${server.port}/bc`), STRICT, deps(resolver({}))));
  t.match(literal.message, 'the address is loopback');
  t.same(server.hits, [], 'nothing reached the server');
});

t.test("the strict policy refuses the provider's own address, even a public one", async (t) => {
  const resolve = resolver({ 'sso.example.test': [['8.8.4.4']], [NAME]: [['8.8.4.4']] });
  const err = await refusal(t, guardedFetch(post(`https://${NAME}/bc`), { ...STRICT, ownHost: 'sso.example.test' }, deps(resolve)));
  t.equal(err.code, 'refused-address');
  t.match(err.message, "the address is the provider's own");
});

t.test('an error names the host and never carries the request body', async (t) => {
  const err = await refusal(t, guardedFetch(post('https://127.0.0.1/bc'), STRICT, deps(resolver({}))));
  t.notMatch(err.message, 'logout_token');
  t.notMatch(err.stack ?? '', 'logout_token');
});
