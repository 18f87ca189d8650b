// OpenID Connect Back-Channel Logout 1.0: logout tokens to the clients of an ended session, queued durably,
// delivered without holding up the user, retried a bounded number of times.
import { createMetrics } from '../../../src/metrics.js';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import pino from 'pino';
import t, { type Test } from 'tap';
import { deliverDueLogouts, type LogoutSender } from '../../../src/domain/logout/backchannel-logout.js';
import { ClientCache } from '../../../src/domain/clients/client-cache.js';
import { ClientKeySets, fetchClientJwks } from '../../../src/domain/clients/client-jwks.js';
import { SecretVerificationCache } from '../../../src/domain/clients/clients.js';
import { SubjectIdentifiers } from '../../../src/domain/clients/pairwise.js';
import type { ProviderContext } from '../../../src/domain/context.js';
import { loadKeyStore } from '../../../src/domain/keys/keys.js';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../../src/domain/logout/logout-token.js';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { RandomSource } from '../../../src/domain/secrets.js';
import { sessionKey } from '../../../src/domain/accounts/sessions.js';
import { systemOutbound } from '../../../src/outbound/guarded-fetch.js';
import { countQueuedLogouts } from '../../../src/storage/backchannel-logouts.js';
import { endSession } from '../../../src/storage/sessions.js';
import { dnsTxtLookup } from '../../../src/outbound/dns-txt.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, FIXTURES, type TestApp } from '../../helpers/app.js';
import { Browser, obtainCode, silentAuthorize, tokenRequest, basicAuth } from '../../helpers/flow.js';
import { startLogoutReceiver, type LogoutReceiver } from '../../helpers/logout-receiver.js';

const FAST_RETRIES = {
  BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS: '1',
  BACKCHANNEL_LOGOUT_MAX_ATTEMPTS: '3',
  BACKCHANNEL_LOGOUT_RETRY_SECONDS: '1',
  BACKCHANNEL_LOGOUT_POLL_SECONDS: '1',
};

function clients(receiver: LogoutReceiver) {
  return {
    withSid: {
      client_id: 'bc-sid',
      client_secret: 'bc-sid-secret-0123456789',
      client_name: 'Needs sid',
      redirect_uris: ['https://bc-sid.example/cb'],
      backchannel_logout_uri: `${receiver.baseUrl}/bc/sid?tenant=1`,
      backchannel_logout_session_required: true,
    },
    plain: {
      client_id: 'bc-plain',
      client_secret: 'bc-plain-secret-0123456789',
      client_name: 'Plain',
      redirect_uris: ['https://bc-plain.example/cb'],
      backchannel_logout_uri: `${receiver.baseUrl}/bc/plain`,
      id_token_signed_response_alg: 'ES256',
    },
    notSignedIn: {
      client_id: 'bc-idle',
      client_secret: 'bc-idle-secret-0123456789',
      redirect_uris: ['https://bc-idle.example/cb'],
      backchannel_logout_uri: `${receiver.baseUrl}/bc/idle`,
    },
  };
}

type SeededClient = ReturnType<typeof clients>['withSid'] | typeof CONFIDENTIAL;

async function setUp(t: Test, env: Record<string, string> = FAST_RETRIES) {
  const receiver = await startLogoutReceiver(t);
  const c = clients(receiver);
  const test = await buildTestApp(t, { env, seed: { clients: [CONFIDENTIAL, c.withSid, c.plain, c.notSignedIn], users: FIXTURES.users } });
  return { receiver, c, ...test };
}

/** Signs in to `client` in `browser` (a new one if none) and redeems the code: the ID token's claims. */
async function signInTo(test: TestApp, client: SeededClient, browser?: Browser) {
  const got = await obtainCode(test.app, { client_id: client.client_id, redirect_uri: client.redirect_uris[0] }, { user: ALICE, browser });
  const res = await tokenRequest(
    test.app,
    { grant_type: 'authorization_code', code: got.code, redirect_uri: got.redirectUri, code_verifier: got.verifier },
    basicAuth(client.client_id, client.client_secret),
  );
  if (res.statusCode !== 200) throw new Error(res.body);
  return { browser: got.browser, idToken: (res.json() as { id_token: string }).id_token };
}

function logOut(test: TestApp, browser: Browser, idToken: string) {
  return browser.request(test.app, 'GET', `/sso/session/end?${new URLSearchParams({ id_token_hint: idToken })}`);
}

/** What the app's routes get, built beside it on its database, to drive deliveries by hand. */
async function providerContext(t: Test, test: TestApp, clock: () => Date): Promise<ProviderContext> {
  const { config, db } = test;
  const ctx: ProviderContext = {
    config,
    db,
    clock,
    keys: await loadKeyStore(db, config, clock, pino({ level: 'silent' })),
    passwords: new PasswordHasher(config.argon2),
    passwordPolicy: new PasswordPolicy(config.passwordPolicy),
    random: new RandomSource(),
    clientSecrets: new SecretVerificationCache(0),
    clients: new ClientCache(),
    clientKeySets: new ClientKeySets((uri) => fetchClientJwks(config, systemOutbound, uri)),
    deviceSecret: Buffer.alloc(32),
    subjects: new SubjectIdentifiers(Buffer.alloc(32)),
    log: pino({ level: 'silent' }),
    metrics: createMetrics(),
    outbound: systemOutbound,
    dns: dnsTxtLookup(config.dnsResolvers),
  };
  t.teardown(() => ctx.keys.close());
  return ctx;
}

/**
 * Until the queue of deliveries is empty (or 5 s have passed). A delivery leaves the queue only after its POST, once
 * delivered or given up: with the queue empty, no delivery is pending or under way, and none can come later.
 */
async function queueDrained(test: TestApp): Promise<void> {
  for (let i = 0; i < 250 && (await countQueuedLogouts(test.db)) > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
}

async function jwks(test: TestApp) {
  return createLocalJWKSet((await test.app.inject({ method: 'GET', url: '/sso/jwks' })).json() as JSONWebKeySet);
}

t.test('Back-Channel Logout 2.5: each client the session signed in to with a backchannel_logout_uri gets a logout token', async (t) => {
  const test = await setUp(t);
  const { receiver, c } = test;
  const first = await signInTo(test, c.withSid);
  await signInTo(test, c.plain, first.browser);
  await signInTo(test, CONFIDENTIAL, first.browser);
  const idClaims = decodeJwt(first.idToken);

  const res = await logOut(test, first.browser, first.idToken);
  t.equal(res.statusCode, 200);
  const got = await receiver.waitFor(2);
  await queueDrained(test);
  t.equal(receiver.received.length, 2, 'no token for a client without the URI, nor for one this session never signed in to');
  const keys = await jwks(test);
  for (const r of got) {
    t.equal(r.contentType, 'application/x-www-form-urlencoded', '2.5: form-encoded POST');
    t.ok(r.logoutToken);
    const audience = r.path.startsWith('/bc/sid') ? c.withSid.client_id : c.plain.client_id;
    t.equal(r.path, r.path.startsWith('/bc/sid') ? '/bc/sid?tenant=1' : '/bc/plain', 'the registered URI, query and all');
    const { payload, protectedHeader } = await jwtVerify(r.logoutToken!, keys, { issuer: test.config.issuer, audience, typ: 'logout+jwt' });
    t.equal(protectedHeader.alg, audience === c.plain.client_id ? 'ES256' : 'RS256', "signed with the client's ID token alg");
    t.equal(payload.sub, idClaims.sub, '2.4: sub of the user');
    t.equal(payload.sid, idClaims.sid, '2.4: sid of the ID tokens of this session');
    t.same(payload.events, { [BACKCHANNEL_LOGOUT_EVENT]: {} }, '2.4: the back-channel logout event');
    t.type(payload.jti, 'string');
    t.type(payload.iat, 'number');
    t.ok(payload.exp! > payload.iat! && payload.exp! - payload.iat! <= 120, '2.4: short-lived');
    t.notOk('nonce' in payload, '2.4: "A nonce Claim MUST NOT be present"');
  }
  t.equal(await countQueuedLogouts(test.db), 0, 'delivered deliveries leave the queue');
});

t.test('the user does not wait for a client that does not answer; the delivery times out and is retried', async (t) => {
  const test = await setUp(t);
  const { receiver, c } = test;
  receiver.answers.push('hang');
  const { browser, idToken } = await signInTo(test, c.withSid);
  const started = Date.now();
  const res = await logOut(test, browser, idToken);
  const took = Date.now() - started;
  t.equal(res.statusCode, 200);
  t.ok(took < 900, `the logout answered in ${took} ms, less than the 1 s delivery timeout`);
  const got = await receiver.waitFor(2);
  t.ok(got[1]!.at - got[0]!.at >= 1900, 'the retry came after the timeout (1 s) and the retry delay (1 s)');
  t.not(decodeJwt(got[0]!.logoutToken!).jti, decodeJwt(got[1]!.logoutToken!).jti, 'each attempt signs a new token');
  await queueDrained(test);
  t.equal(await countQueuedLogouts(test.db), 0);
});

t.test('bounded retries: failures are retried with a growing delay, then given up', async (t) => {
  const test = await setUp(t);
  const { receiver, c } = test;
  receiver.answers.push(500, 503, 302, 500);
  const { browser, idToken } = await signInTo(test, c.withSid);
  await logOut(test, browser, idToken);
  const got = await receiver.waitFor(3);
  const gaps = [got[1]!.at - got[0]!.at, got[2]!.at - got[1]!.at];
  t.ok(gaps[0]! >= 900, `first retry after about 1 s (${gaps[0]} ms)`);
  t.ok(gaps[1]! >= 1900, `second retry after about 2 s (${gaps[1]} ms)`);
  await queueDrained(test);
  t.equal(receiver.received.length, 3, 'BACKCHANNEL_LOGOUT_MAX_ATTEMPTS=3 attempts, no more (a redirect counts as a failure)');
  t.equal(await countQueuedLogouts(test.db), 0, 'a given-up delivery leaves the queue');
});

t.test('durable and exactly once: the queue is written with the session end, and concurrent senders share it', async (t) => {
  // No polling during this test: deliveries are driven by hand.
  const test = await setUp(t, { ...FAST_RETRIES, BACKCHANNEL_LOGOUT_POLL_SECONDS: '3600' });
  const { receiver, c } = test;
  const first = await signInTo(test, c.withSid);
  await signInTo(test, c.plain, first.browser);
  const cookie = first.browser.get('sso_session')!;
  const ended = await endSession(test.db, sessionKey(cookie), new Date());
  t.equal(ended?.queued, 2, 'the statement that ends the session queues both deliveries');
  t.equal(await countQueuedLogouts(test.db), 2);
  t.equal(await endSession(test.db, sessionKey(cookie), new Date()), undefined, 'an ended session cannot end twice');
  t.equal(await countQueuedLogouts(test.db), 2, 'nor queue twice');

  const ctx = await providerContext(t, test, () => new Date());
  const sent: string[] = [];
  const send: LogoutSender = async (uri) => {
    sent.push(uri);
    await new Promise((r) => setTimeout(r, 50));
  };
  const outcomes = (await Promise.all([deliverDueLogouts(ctx, send), deliverDueLogouts(ctx, send), deliverDueLogouts(ctx, send)])).flat();
  t.equal(sent.length, 2, 'three senders at once deliver each logout once');
  t.same(outcomes.map((o) => o.outcome).sort(), ['delivered', 'delivered']);
  t.equal(await countQueuedLogouts(test.db), 0);
  t.equal(receiver.received.length, 0, 'nothing went through the real sender');
});

t.test('Back-Channel Logout 2.4: a failed delivery waits for its retry time before anyone sends it again', async (t) => {
  const test = await setUp(t, { ...FAST_RETRIES, BACKCHANNEL_LOGOUT_POLL_SECONDS: '3600', BACKCHANNEL_LOGOUT_RETRY_SECONDS: '60' });
  const { c } = test;
  const { browser } = await signInTo(test, c.withSid);
  await endSession(test.db, sessionKey(browser.get('sso_session')!), new Date());
  let offset = 0;
  const ctx = await providerContext(t, test, () => new Date(Date.now() + offset));
  const failing: LogoutSender = async () => {
    throw new Error('the client answered 500');
  };
  t.match(await deliverDueLogouts(ctx, failing), [{ outcome: 'retry', attempts: 1, reason: 'the client answered 500' }]);
  t.same(await deliverDueLogouts(ctx, failing), [], 'not due yet');
  offset = 59_000;
  t.same(await deliverDueLogouts(ctx, failing), [], 'still not due after 59 s');
  offset = 61_000;
  t.match(await deliverDueLogouts(ctx, failing), [{ outcome: 'retry', attempts: 2 }]);
  offset = 61_000 + 119_000;
  t.same(await deliverDueLogouts(ctx, failing), [], 'the second wait is twice as long');
  offset = 61_000 + 121_000;
  t.match(await deliverDueLogouts(ctx, failing), [{ outcome: 'gave-up', attempts: 3 }]);
  t.equal(await countQueuedLogouts(test.db), 0);
});

t.test('issue 16 finding 7: a sign-in in a browser ends the session that browser had, and its clients get a logout token', async (t) => {
  const test = await setUp(t);
  const browser = new Browser();
  const first = await signInTo(test, test.c.plain, browser);
  const firstCookie = browser.get('sso_session')!;
  t.ok(firstCookie);
  // Someone else signs in in the same browser (a shared computer): a new session replaces the one it held.
  await obtainCode(
    test.app,
    { client_id: test.c.withSid.client_id, redirect_uri: test.c.withSid.redirect_uris[0], prompt: 'login' },
    { user: BOB, browser },
  );
  t.not(browser.get('sso_session'), firstCookie, 'the browser holds a new session');

  // Back-Channel Logout 1.0 2.7: the ended session's client learns of it, for the first user and session.
  const [delivered] = await test.receiver.waitFor(1);
  t.equal(delivered!.path, '/bc/plain');
  const claims = decodeJwt(delivered!.logoutToken!);
  t.equal(claims.sub, decodeJwt(first.idToken).sub);

  // OIDC Core 3.1.2.1 prompt=none: the old cookie, kept by an attacker or a second tab, no longer yields codes.
  const location = await silentAuthorize(test.app, firstCookie);
  t.equal(location.searchParams.get('error'), 'login_required');
});
