// Issue 19: signing in through an upstream OpenID provider. The upstream is node-oidc-provider (an independently
// written, certified OpenID Provider) on 127.0.0.1, the relying party is openid-client at our issuer, and Chromium
// clicks through both: a first sign-in provisions a user, a second finds the same one, a verified address of a local
// account is linked only after its password, a signed-in person links another account from the account page, and
// each refusal (an unverified address, a replayed state, a wrong nonce, an ID token for another audience, an upstream
// that is down) is a page with its status.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import Provider from 'oidc-provider';
import t from 'tap';
import type { Test } from 'tap';
import type { Browser, Page } from 'playwright-core';
import { ALICE, BOB, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { holdPort, listenTestApp, REFUSED_PORT, type HeldPort, type ListeningApp } from '../../helpers/listening.js';
import { KEYS_SECRET } from '../../helpers/account.js';
import { openUpstreamTokens } from '../../../src/domain/connections/upstream-tokens.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
const UPSTREAM_SECRET = 'upstream-client-secret-0123456789';
/** The class of authentication the tampering proxy says the upstream performed. */
const UPSTREAM_ACR = 'urn:upstream:loa:high';

/** The upstream's accounts: the login typed on its dev sign-in page is the account id (its `sub`). */
const ACCOUNTS: Record<string, Record<string, unknown>> = {
  carol: {
    email: 'carol@upstream.test',
    email_verified: true,
    name: 'Carol Upstream',
    preferred_username: 'carol',
    groups: ['engineering', 'ops'],
  },
  // BOB's address, which the upstream does not call verified.
  'bob-elsewhere': { email: BOB.email, email_verified: false, name: 'Not Bob', preferred_username: 'bob' },
  // ALICE's address, verified upstream: linked once the person gives ALICE's password.
  'alice-upstream': { email: ALICE.email, email_verified: true, name: 'Alice Upstream', preferred_username: 'alice-up' },
  dave: { email: 'dave@upstream.test', email_verified: true, name: 'Dave' },
  erin: { email: 'erin@upstream.test', email_verified: true, name: 'Erin' },
  frank: { email: 'frank@upstream.test', email_verified: true, name: 'Frank' },
  // Linked to BOB from his account page.
  'bob-upstream': { email: 'bob@upstream.test', email_verified: true, name: 'Bob Upstream' },
  // BOB's address, verified upstream: linked once the person uses BOB's passkey.
  'bob-verified': { email: BOB.email, email_verified: true, name: 'Bob Verified' },
};

interface Upstream {
  issuer: string;
  /** What the token proxy does to the upstream's answer. */
  tamper: { mode: 'none' | 'nonce' | 'aud' | 'amr' | 'down' };
  proxyUrl: string;
}

/** node-oidc-provider on the held port with our two callbacks registered, signing with a key the test holds too. */
async function startUpstream(t: Test, held: HeldPort, ourIssuer: string, privateJwk: JWK): Promise<string> {
  const issuer = `http://127.0.0.1:${held.port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'sso',
        client_secret: UPSTREAM_SECRET,
        redirect_uris: [
          `${ourIssuer}/connections/op/callback`,
          `${ourIssuer}/connections/op-tampered/callback`,
          `${ourIssuer}/connections/op-trusted/callback`,
        ],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [privateJwk] },
    findAccount: (_ctx, id) => (ACCOUNTS[id] ? { accountId: id, claims: () => ({ sub: id, ...ACCOUNTS[id] }) } : undefined),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    cookies: { keys: ['upstream-cookie-key-for-tests'] },
  });
  const server = http.createServer(provider.callback());
  held.serve(server);
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return issuer;
}

/**
 * A stand-in for the upstream's token endpoint: it forwards the request to the real one, then (as told) re-signs
 * the ID token with another nonce or audience under the upstream's own key, or answers 503 as a provider that is down.
 */
async function startTokenProxy(t: Test, tokenEndpoint: () => string, privateJwk: JWK, tamper: Upstream['tamper']): Promise<string> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (tamper.mode === 'down') {
          res.writeHead(503).end();
          return;
        }
        const forwarded = await fetch(tokenEndpoint(), {
          method: 'POST',
          headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? '' },
          body: Buffer.concat(chunks),
        });
        const body = (await forwarded.json()) as Record<string, unknown>;
        if (typeof body.id_token === 'string' && tamper.mode !== 'none') {
          const header = decodeProtectedHeader(body.id_token);
          const claims = decodeJwt(body.id_token);
          const changed =
            tamper.mode === 'nonce'
              ? { ...claims, nonce: 'not-the-nonce-we-sent' }
              : tamper.mode === 'amr'
                ? { ...claims, amr: ['hwk', 'mfa'], acr: UPSTREAM_ACR }
                : { ...claims, aud: 'another-client' };
          const key = await (await import('jose')).importJWK(privateJwk, 'RS256');
          body.id_token = await new SignJWT(changed).setProtectedHeader({ alg: header.alg!, kid: header.kid! }).sign(key);
        }
        res.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      })().catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
}

interface Fixture {
  server: ListeningApp;
  upstream: Upstream;
}

/** One upstream and one of our servers for the whole file. */
async function setUp(t: Test): Promise<Fixture> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid: 'upstream-key-1', alg: 'RS256', use: 'sig' };
  const upstreamPort = await holdPort(t);
  const upstreamIssuer = `http://127.0.0.1:${upstreamPort.port}`;
  const tamper: Upstream['tamper'] = { mode: 'none' };
  const proxyUrl = await startTokenProxy(t, () => `${upstreamIssuer}/token`, privateJwk, tamper);
  const common = { client_id: 'sso', client_secret: UPSTREAM_SECRET, kind: 'oidc' as const, issuer: upstreamIssuer };
  const server = await listenTestApp(t, {
    env: { ...HEADLESS_IS_FINE, ...KEYS_SECRET },
    // A host name, not an address: a passkey's RP ID must be a domain (WebAuthn L3 §5.1.4.1).
    hostName: 'localhost',
    seed: {
      ...FIXTURES,
      connections: [
        {
          ...common,
          id: 'op',
          display_name: 'Upstream OP',
          provisioning: 'create',
          scopes: ['openid', 'email', 'profile', 'groups'],
          store_tokens: true,
        },
        { ...common, id: 'op-tampered', display_name: 'Tampered OP', provisioning: 'create', token_endpoint: proxyUrl },
        { ...common, id: 'op-gone', display_name: 'Gone OP', issuer: `http://127.0.0.1:${REFUSED_PORT}` },
        { ...common, id: 'op-trusted', display_name: 'Trusted OP', token_endpoint: proxyUrl, trust_amr: true },
      ],
    },
  });
  await startUpstream(t, upstreamPort, server.issuer, privateJwk);
  return { server, upstream: { issuer: upstreamIssuer, tamper, proxyUrl } };
}

interface Run {
  page: Page;
  /** Every URL our callback was reached with. */
  callbacks: string[];
  /** The client's redirect URI once reached (intercepted, never fetched). */
  clientCallback: () => Promise<URL>;
}

/** A fresh browser context at our sign-in page for a new authorization request of the test client. */
async function open(t: Test, browser: Browser, server: ListeningApp, authorizationUrl: string): Promise<Run> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const callbacks: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(`${server.issuer}/connections/`) && request.url().includes('/callback')) callbacks.push(request.url());
  });
  let captured: URL | undefined;
  await page.route(`${REDIRECT_URI}*`, async (route) => {
    captured = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Callback</title><p>back at the client</p>' });
  });
  await page.goto(authorizationUrl);
  return {
    page,
    callbacks,
    async clientCallback() {
      await page.waitForURL(`${REDIRECT_URI}*`);
      return captured!;
    },
  };
}

/** Signs in at node-oidc-provider's development pages: any password, then its consent. */
async function signInUpstream(page: Page, login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The status and text of the page our server answered at `urlPart` with. */
async function refusal(page: Page, action: () => Promise<unknown>, urlPart: string): Promise<{ status: number; text: string }> {
  const response = page.waitForResponse((r) => r.url().includes(urlPart) && r.request().method() !== 'OPTIONS');
  await action();
  const answered = await response;
  await page.waitForLoadState();
  return { status: answered.status(), text: (await page.locator('p.lead').textContent()) ?? '' };
}

await withChromium(t, async (browser) => {
  const { server, upstream } = await setUp(t);
  const rp = await discoverConfidential(server);
  const linksOf = (connection: string) =>
    server.db.selectFrom('connection_links').selectAll().where('connection_id', '=', connection).execute();
  const keptTokens = (link: { connection_id: string; subject: string; tokens_sealed: Record<string, unknown> | null }) =>
    openUpstreamTokens(
      { db: server.db, clock: () => new Date(), config: server.config },
      link.connection_id,
      link.subject,
      link.tokens_sealed!,
    );

  t.test('a first sign-in through the upstream provisions a user; the second finds the same one (no duplicate)', async (t) => {
    const subs: string[] = [];
    for (const round of [1, 2]) {
      const attempt = await prepareAttempt(rp, REDIRECT_URI, 'openid profile email groups');
      const run = await open(t, browser, server, attempt.authorizationUrl.href);
      await run.page.getByRole('button', { name: 'Sign in with Upstream OP' }).click();
      await signInUpstream(run.page, 'carol');
      if (round === 1) await run.page.getByRole('button', { name: 'Allow' }).click();
      const tokens = await redeem(attempt, await run.clientCallback());
      const claims = tokens.claims()!;
      subs.push(claims.sub);
      // RFC 8176 2: "fed" Federated authentication; the upstream's amr is not passed on (the connection is not trusted for it).
      t.same(claims.amr, ['fed'], `round ${round}: amr says fed`);
      t.same(claims.groups, ['engineering', 'ops'], `round ${round}: the upstream's groups are the groups claim (scope groups)`);
      const callback = new URL(run.callbacks[0]!);
      t.equal(callback.searchParams.get('iss'), upstream.issuer, `round ${round}: the upstream sent iss (RFC 9207), checked`);
    }
    t.equal(subs[0], subs[1], 'the same user both times');
    const links = await linksOf('op');
    // Issue 19 store_tokens: the last sign-in's tokens, sealed on the link; they work at the upstream's userinfo.
    const carolLink = links.find((l) => l.subject === 'carol')!;
    t.equal((carolLink.tokens_sealed as { v?: number }).v, 1, 'kept encrypted');
    const kept = await keptTokens(carolLink);
    t.equal(decodeJwt(kept!.id_token!).sub, 'carol', "the upstream's ID token is kept with them");
    const me = await fetch(`${upstream.issuer}/me`, { headers: { authorization: `Bearer ${kept!.access_token}` } });
    t.match(await me.json(), { sub: 'carol' }, 'the kept access token works at the upstream (OIDC Core 5.3)');
    t.equal(links.filter((l) => l.subject === 'carol').length, 1, 'one link for the upstream account');
    const user = await server.db.selectFrom('users').selectAll().where('id', '=', links[0]!.user_id).executeTakeFirstOrThrow();
    t.equal(user.username, 'carol', 'the username comes from preferred_username');
    t.equal(user.email, 'carol@upstream.test', 'the verified address is kept');
    t.equal(user.email_verified, true);
  });

  t.test('an unverified upstream address of a local account neither links nor creates: 403 with a clear page', async (t) => {
    const attempt = await prepareAttempt(rp, REDIRECT_URI);
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    await run.page.getByRole('button', { name: 'Sign in with Upstream OP' }).click();
    const page = await refusal(run.page, () => signInUpstream(run.page, 'bob-elsewhere'), '/connections/op/callback');
    t.equal(page.status, 403);
    t.match(page.text, 'does not confirm that this email address is yours');
    t.equal((await linksOf('op')).filter((l) => l.subject === 'bob-elsewhere').length, 0, 'not linked');
    const bobs = await server.db.selectFrom('users').select('username').where('email', '=', BOB.email).execute();
    t.same(bobs, [{ username: 'bob' }], 'no second account with that address');
  });

  t.test("a verified upstream address of a local account is linked only after that account's password", async (t) => {
    const attempt = await prepareAttempt(rp, REDIRECT_URI);
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    await run.page.getByRole('button', { name: 'Sign in with Upstream OP' }).click();
    await signInUpstream(run.page, 'alice-upstream');
    await run.page.getByRole('heading', { name: 'Link your account' }).waitFor();
    t.match(await run.page.locator('p.lead').textContent(), ALICE.email, 'the page says which account and why');
    await run.page.getByLabel('Password').fill('not the password');
    await run.page.getByRole('button', { name: 'Link and sign in' }).click();
    t.equal((await run.page.getByRole('alert').textContent())?.trim(), 'The password is not correct.');
    t.equal((await linksOf('op')).filter((l) => l.subject === 'alice-upstream').length, 0, 'a wrong password links nothing');
    await run.page.getByLabel('Password').fill(ALICE.password);
    await run.page.getByRole('button', { name: 'Link and sign in' }).click();
    await run.page.getByRole('button', { name: 'Allow' }).click();
    const claims = (await redeem(attempt, await run.clientCallback())).claims()!;
    const alice = await server.db.selectFrom('users').select('id').where('username', '=', ALICE.username).executeTakeFirstOrThrow();
    t.equal(claims.sub, alice.id, 'the RP sees the local account');
    t.same(claims.amr, ['fed', 'pwd'], 'the upstream and the password');
    const aliceLink = (await linksOf('op')).find((l) => l.subject === 'alice-upstream');
    t.equal(aliceLink?.user_id, alice.id, 'now linked');
    t.equal(decodeJwt((await keptTokens(aliceLink!))!.id_token!).sub, 'alice-upstream', 'the tokens waited for the password');
  });

  t.test('a replayed state is refused with 400 (RFC 6749 10.12)', async (t) => {
    const attempt = await prepareAttempt(rp, REDIRECT_URI);
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    await run.page.getByRole('button', { name: 'Sign in with Upstream OP' }).click();
    await signInUpstream(run.page, 'carol');
    await run.clientCallback();
    const page = await refusal(run.page, () => run.page.goto(run.callbacks[0]!), '/connections/op/callback');
    t.equal(page.status, 400);
    t.match(page.text, 'already been used');
  });

  t.test('an ID token with another nonce is refused with 502 (OIDC Core 3.1.3.7 step 11)', async (t) => {
    upstream.tamper.mode = 'nonce';
    t.teardown(() => (upstream.tamper.mode = 'none'));
    const attempt = await prepareAttempt(rp, REDIRECT_URI);
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    await run.page.getByRole('button', { name: 'Sign in with Tampered OP' }).click();
    const page = await refusal(run.page, () => signInUpstream(run.page, 'dave'), '/connections/op-tampered/callback');
    t.equal(page.status, 502);
    t.match(page.text, 'could not be trusted');
    t.equal((await linksOf('op-tampered')).length, 0, 'nobody provisioned');
  });

  t.test('an ID token for another audience is refused with 502 (OIDC Core 3.1.3.7 step 3)', async (t) => {
    upstream.tamper.mode = 'aud';
    t.teardown(() => (upstream.tamper.mode = 'none'));
    const attempt = await prepareAttempt(rp, REDIRECT_URI);
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    await run.page.getByRole('button', { name: 'Sign in with Tampered OP' }).click();
    const page = await refusal(run.page, () => signInUpstream(run.page, 'dave'), '/connections/op-tampered/callback');
    t.equal(page.status, 502);
    t.match(page.text, 'could not be trusted');
    t.equal((await linksOf('op-tampered')).length, 0, 'nobody provisioned');
  });

  t.test('an upstream that is down is a 502 page: a token endpoint answering 503, and an issuer nobody listens on', async (t) => {
    upstream.tamper.mode = 'down';
    t.teardown(() => (upstream.tamper.mode = 'none'));
    const attempt = await prepareAttempt(rp, REDIRECT_URI);
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    await run.page.getByRole('button', { name: 'Sign in with Tampered OP' }).click();
    const tokenDown = await refusal(run.page, () => signInUpstream(run.page, 'dave'), '/connections/op-tampered/callback');
    t.equal(tokenDown.status, 502);
    t.match(tokenDown.text, 'cannot be reached right now');

    const again = await prepareAttempt(rp, REDIRECT_URI);
    const second = await open(t, browser, server, again.authorizationUrl.href);
    const gone = await refusal(
      second.page,
      () => second.page.getByRole('button', { name: 'Sign in with Gone OP' }).click(),
      '/connections/op-gone/start',
    );
    t.equal(gone.status, 502);
    t.match(gone.text, 'cannot be reached right now');
  });

  t.test("the upstream's amr and acr are passed on only for a connection trusted for them (RFC 8176, trust_amr)", async (t) => {
    upstream.tamper.mode = 'amr';
    t.teardown(() => (upstream.tamper.mode = 'none'));
    const seen: Record<string, unknown> = {};
    const acr: Record<string, unknown> = {};
    for (const [button, login] of [
      ['Sign in with Tampered OP', 'erin'],
      ['Sign in with Trusted OP', 'frank'],
    ] as const) {
      const attempt = await prepareAttempt(rp, REDIRECT_URI);
      const run = await open(t, browser, server, attempt.authorizationUrl.href);
      await run.page.getByRole('button', { name: button }).click();
      await signInUpstream(run.page, login);
      await run.page.getByRole('button', { name: 'Allow' }).click();
      const claims = (await redeem(attempt, await run.clientCallback())).claims()!;
      seen[button] = claims.amr;
      acr[button] = claims.acr;
    }
    t.same(seen['Sign in with Tampered OP'], ['fed'], 'not trusted: fed only');
    t.same(seen['Sign in with Trusted OP'], ['fed', 'hwk', 'mfa'], 'trusted: fed, then the upstream values');
    // OIDC Core 2 acr, passed on as amr is: only where the admin trusts the upstream for it.
    t.equal(acr['Sign in with Tampered OP'], undefined, 'not trusted: no acr');
    t.equal(acr['Sign in with Trusted OP'], UPSTREAM_ACR, "trusted: the upstream's acr");
    const tampered = await linksOf('op-tampered');
    t.ok(tampered.length > 0 && tampered.every((l) => l.tokens_sealed === null), 'a connection without store_tokens keeps no tokens');
  });

  t.test('a signed-in person links another account from the account page (issue 19, "link another")', async (t) => {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account`);
    await page.locator('input[name=login]').fill(BOB.username);
    await page.locator('input[name=password]').fill(BOB.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Link Upstream OP' }).click();
    // PKCE, state and nonce as for a sign-in; node-oidc-provider's ID token is verified the same way.
    await signInUpstream(page, 'bob-upstream');
    await page.waitForURL(`${server.issuer}/account`);
    t.equal(await page.locator('li[data-connection="op"] strong').textContent(), 'Upstream OP', 'the account page lists the link');
    const bob = await server.db.selectFrom('users').select('id').where('username', '=', BOB.username).executeTakeFirstOrThrow();
    t.equal((await linksOf('op')).find((l) => l.subject === 'bob-upstream')?.user_id, bob.id, "linked to Bob's account");
  });

  t.test('a verified upstream address of a local account with a passkey is linked after that passkey (issue 19)', async (t) => {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const authenticator = {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    } as const;
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', authenticator);
    // Bob registers a passkey on his account page (WebAuthn L3 §7.1).
    await page.goto(`${server.issuer}/account`);
    await page.locator('input[name=login]').fill(BOB.username);
    await page.locator('input[name=password]').fill(BOB.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByLabel('Name').fill('Bob key');
    await page.getByRole('button', { name: 'Create the passkey' }).click();
    await page.waitForURL(`${server.issuer}/account?done=passkey-added`);
    // The authenticator is put away until the link page asks for it: the sign-in page's autofill request (conditional
    // mediation) would otherwise be answered at once, and Bob signed in by his passkey before choosing the upstream.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });

    // A new sign-in (prompt=login) through the upstream, whose verified address is Bob's.
    // The redirect to the client is read from the request itself: a route does not see every hop of a redirect chain.
    let captured: URL | undefined;
    page.on('request', (request) => {
      if (request.url().startsWith(REDIRECT_URI)) captured = new URL(request.url());
    });
    const attempt = await prepareAttempt(rp, REDIRECT_URI, undefined, { prompt: 'login' });
    await page.goto(attempt.authorizationUrl.href);
    await page.getByRole('button', { name: 'Sign in with Upstream OP' }).click();
    await signInUpstream(page, 'bob-verified');
    await page.getByRole('heading', { name: 'Link your account' }).waitFor();
    t.match(await page.locator('p.lead').textContent(), 'use its passkey, or enter its password', 'the page offers the passkey');
    // WebAuthn L3 §7.2: the virtual authenticator, Bob's passkey back in it, answers the assertion the button asks for.
    const again = await cdp.send('WebAuthn.addVirtualAuthenticator', authenticator);
    await cdp.send('WebAuthn.addCredential', { authenticatorId: again.authenticatorId, credential: credentials[0]! });
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    for (let waited = 0; !captured && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    const claims = (await redeem(attempt, captured!)).claims()!;
    const bob = await server.db.selectFrom('users').select('id').where('username', '=', BOB.username).executeTakeFirstOrThrow();
    t.equal(claims.sub, bob.id, "the RP sees Bob's account");
    // RFC 8176 2: fed, then the passkey's hwk (a key held by this device), user (verified), mfa.
    t.same(claims.amr, ['fed', 'hwk', 'user', 'mfa'], 'the upstream and the passkey');
    t.equal((await linksOf('op')).find((l) => l.subject === 'bob-verified')?.user_id, bob.id, 'now linked');
  });

  t.test('idp_hint sends the browser straight to the upstream', async (t) => {
    const attempt = await prepareAttempt(rp, REDIRECT_URI, undefined, { idp_hint: 'op' });
    const run = await open(t, browser, server, attempt.authorizationUrl.href);
    t.ok(run.page.url().startsWith(upstream.issuer), 'at the upstream without a click');
    await signInUpstream(run.page, 'carol');
    t.ok((await redeem(attempt, await run.clientCallback())).claims()!.sub, 'signed in');
  });
});
