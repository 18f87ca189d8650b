// Form bodies built to make the parser work hard (issue 16, finding 1): a listening server refuses them at once,
// as RFC 6749 3.1 asks of a repeated parameter, and stays responsive while several are in flight.
import t, { type Test } from 'tap';
import { CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth } from '../../helpers/flow.js';
import { listenTestApp } from '../../helpers/listening.js';

const server = await listenTestApp(t);
const BODY_BYTES = 64 * 1024 - 64;
/** `a&a&a…`: before the fix each repeat copied the array of earlier values, about 5 s of one core for 64 KiB. */
const REPEATED = 'a&'.repeat(BODY_BYTES / 2);
/** `a0&a1&…`: thousands of distinct names, all kept until the handler ignored them. */
const DISTINCT = distinctNames(BODY_BYTES);
/**
 * The refusal itself takes a few milliseconds; the bound leaves room for a loaded machine (tests run in parallel on
 * two cores) and is still far below the seconds the quadratic parser needed.
 */
const BOUND_MS = 750;

function distinctNames(bytes: number): string {
  const names: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i += 1) {
    names.push(`a${i}`);
    length += `a${i}&`.length;
  }
  return names.join('&');
}

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

function assertRefusedQuickly(t: Test, answer: { status: number; text: string; ms: number }, description: RegExp) {
  t.equal(answer.status, 400, answer.text.slice(0, 200));
  t.match(answer.text, description);
  t.ok(answer.ms < BOUND_MS, `answered in ${Math.round(answer.ms)} ms (under ${BOUND_MS} ms)`);
}

// A warm-up request, so that the first measured answer does not carry the server's first-request costs.
await post('/sso/token', 'grant_type=x');

t.test('RFC 6749 3.1: a 64 KiB body of one repeated name is refused at once with invalid_request', async (t) => {
  const token = await post('/sso/token', REPEATED, { authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret) });
  assertRefusedQuickly(t, token, /"error":"invalid_request"/);
  t.match(JSON.parse(token.text).error_description, /^parameter a must not be repeated$/);
  // RFC 9126 2.1: the pushed authorization request is a form body like the others.
  for (const path of ['/sso/revoke', '/sso/introspect', '/sso/device_authorization', '/sso/userinfo', '/sso/par']) {
    assertRefusedQuickly(t, await post(path, REPEATED), /invalid_request/);
  }
});

t.test('a 64 KiB body of distinct names is refused at once for carrying too many parameters (invalid_request)', async (t) => {
  const token = await post('/sso/token', DISTINCT);
  assertRefusedQuickly(t, token, /"error":"invalid_request"/);
  t.equal(JSON.parse(token.text).error_description, 'the request has too many parameters');
  // RFC 9126 2.1: the push takes every authorization request parameter, so it must be as quick to refuse this.
  const par = await post('/sso/par', DISTINCT, { authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret) });
  assertRefusedQuickly(t, par, /"error":"invalid_request"/);
  t.equal(JSON.parse(par.text).error_description, 'the request has too many parameters');
});

// RFC 8707 2: resource is the one name a request may repeat (src/http/form-parser.ts): its repeats are still bounded.
t.test('a 64 KiB body of resource repeated is refused at once for carrying too many parameters', async (t) => {
  const body = `resource=${encodeURIComponent('https://api.example/')}&`.repeat(BODY_BYTES / 40);
  const auth = { authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret) };
  for (const path of ['/sso/token', '/sso/par', '/sso/device_authorization', '/sso/authorize']) {
    const answer = await post(path, body, auth);
    assertRefusedQuickly(t, answer, /too many parameters/);
  }
});

t.test('the authorization endpoint, which keeps repeats for its error redirect (RFC 6749 4.1.2.1), is as quick', async (t) => {
  for (const body of [REPEATED, DISTINCT]) {
    const answer = await post('/sso/authorize', body);
    assertRefusedQuickly(t, answer, /too many parameters/);
  }
  // The query string is bounded by the 16 KiB header limit, and parsed the same way.
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}/sso/authorize?${'a&'.repeat(7000)}`);
  const ms = performance.now() - started;
  t.equal(response.status, 400);
  t.match(await response.text(), /too many parameters/);
  t.ok(ms < BOUND_MS, `a query of 7000 repeats answered in ${Math.round(ms)} ms`);
});

t.test('/healthz answers promptly while several such bodies are in flight', async (t) => {
  const floods = Array.from({ length: 4 }, (_, i) => post(i % 2 === 0 ? '/sso/token' : '/sso/revoke', i < 2 ? REPEATED : DISTINCT));
  const started = performance.now();
  const health = await fetch(`${server.baseUrl}/healthz`);
  const ms = performance.now() - started;
  t.equal(health.status, 200);
  t.ok(ms < BOUND_MS * 2, `/healthz answered in ${Math.round(ms)} ms with four floods in flight`);
  for (const answer of await Promise.all(floods)) t.equal(answer.status, 400);
});
