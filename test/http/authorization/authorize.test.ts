// The authorization endpoint (RFC 6749 4.1.1-4.1.2, OIDC Core 3.1.2): what is shown, what is redirected, and how.
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES, PUBLIC, SINGLE_REDIRECT } from '../../helpers/app.js';
import { authorizePath, Browser, pkcePair, signIn, tokenRequest } from '../../helpers/flow.js';

const ISSUER = 'http://localhost:3000/sso';
/** Signs in only in the consent_required test, so that no other test can have given her consent. */
const CAROL = { username: 'carol', password: 'carol-password-123' };

t.test('authorization endpoint', async (t) => {
  const { app } = await buildTestApp(t, { seed: { clients: FIXTURES.clients, users: [...FIXTURES.users, CAROL] } });

  /** A request that would succeed, for the confidential client, with one parameter changed at a time. */
  const valid = (overrides: Record<string, string | undefined> = {}) => ({
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid profile',
    state: 'st-123',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  });

  const get = (url: string, cookie?: string) => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

  /** Phase one (RFC 6749 4.1.2.1): an HTML page, status 400, and nothing sent to the unverified redirect URI. */
  function assertShownNotRedirected(t: Test, res: LightMyRequestResponse, message: RegExp) {
    t.equal(res.statusCode, 400, res.body.slice(0, 200));
    t.equal(res.headers.location, undefined, 'no Location header');
    t.match(res.headers['content-type'], /^text\/html/);
    t.equal(res.headers['x-frame-options'], 'DENY');
    t.match(res.body, message);
  }

  /** Phase two: 303 to the verified redirect URI with error, error_description, state and iss (RFC 6749 4.1.2.1, RFC 9207 2). */
  function assertErrorRedirect(
    t: Test,
    res: LightMyRequestResponse,
    error: string,
    { redirectUri = CONFIDENTIAL.redirect_uris[0]!, state = 'st-123' as string | null } = {},
  ): URL {
    t.equal(res.statusCode, 303, res.body.slice(0, 200));
    const location = new URL(String(res.headers.location));
    t.equal(`${location.origin}${location.pathname}`, redirectUri.split('?')[0], 'sent to the registered redirect URI');
    t.equal(location.searchParams.get('error'), error);
    const description = location.searchParams.get('error_description');
    t.ok(description && /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(description), `error_description is safe ASCII (${description})`);
    t.equal(location.searchParams.get('state'), state);
    t.equal(location.searchParams.get('iss'), ISSUER);
    t.notOk(location.searchParams.has('code'), 'no code');
    t.equal(location.hash, '');
    return location;
  }

  t.test('a request without client_id is shown an error page, not redirected (RFC 6749 4.1.2.1)', async (t) => {
    const res = await get(authorizePath(valid({ client_id: undefined })));
    assertShownNotRedirected(t, res, /no client_id/);
  });

  t.test('an unknown client is shown an error page, not redirected (RFC 6749 4.1.2.1)', async (t) => {
    const res = await get(authorizePath(valid({ client_id: 'nobody' })));
    assertShownNotRedirected(t, res, /not registered/);
  });

  t.test('an unregistered redirect_uri is shown an error page, not redirected (RFC 6749 3.1.2.4, RFC 9700 4.1)', async (t) => {
    const res = await get(authorizePath(valid({ redirect_uri: 'https://evil.example/cb' })));
    assertShownNotRedirected(t, res, /redirect_uri is not registered/);
  });

  t.test(
    'a redirect_uri that differs from a registered one only slightly is refused: exact string match (RFC 9700 2.1, 4.1.3)',
    async (t) => {
      const nearMisses = [
        'https://app.example/cb/',
        'https://APP.example/cb',
        'https://app.example/CB',
        'https://app.example/cb?x=1',
        'https://app.example/cb2',
        'https://app.example/cb2?keep=1&more=2',
        'https://app.example:443/cb',
        'http://app.example/cb',
        'https://app.example/cb#frag',
        'https://app.example.evil.example/cb',
      ];
      for (const redirectUri of nearMisses) {
        const res = await get(authorizePath(valid({ redirect_uri: redirectUri })));
        t.equal(res.statusCode, 400, redirectUri);
        t.equal(res.headers.location, undefined, `${redirectUri}: not redirected`);
      }
    },
  );

  t.test('an omitted redirect_uri is refused on a page when the client registered several (RFC 6749 3.1.2.3)', async (t) => {
    const res = await get(authorizePath(valid({ redirect_uri: undefined })));
    assertShownNotRedirected(t, res, /no redirect_uri/);
  });

  t.test('a repeated client_id or redirect_uri is shown an error page, not redirected (RFC 6749 3.1)', async (t) => {
    const twoIds = `/sso/authorize?client_id=${CONFIDENTIAL.client_id}&client_id=${SINGLE_REDIRECT.client_id}&response_type=code&scope=openid`;
    assertShownNotRedirected(t, await get(twoIds), /repeated/);
    const base = authorizePath(valid({ redirect_uri: undefined }));
    const twoUris = `${base}&redirect_uri=${encodeURIComponent(CONFIDENTIAL.redirect_uris[0]!)}&redirect_uri=${encodeURIComponent(CONFIDENTIAL.redirect_uris[0]!)}`;
    assertShownNotRedirected(t, await get(twoUris), /repeated/);
  });

  t.test('an omitted redirect_uri is accepted when exactly one is registered, and errors go there (RFC 6749 3.1.2.3)', async (t) => {
    const params = { ...valid({ client_id: SINGLE_REDIRECT.client_id, redirect_uri: undefined }) };
    const started = await get(authorizePath(params));
    t.equal(started.statusCode, 303);
    t.match(String(started.headers.location), new RegExp(`^${ISSUER}/interaction/[A-Za-z0-9_-]+$`));

    const failed = await get(authorizePath({ ...params, response_type: 'token' }));
    assertErrorRedirect(t, failed, 'unsupported_response_type', { redirectUri: SINGLE_REDIRECT.redirect_uris[0]! });
  });

  t.test('a missing response_type is redirected as invalid_request (RFC 6749 4.1.1, 4.1.2.1)', async (t) => {
    const res = await get(authorizePath(valid({ response_type: undefined })));
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('response_type=token is redirected as unsupported_response_type (RFC 6749 4.1.2.1)', async (t) => {
    const res = await get(authorizePath(valid({ response_type: 'token' })));
    assertErrorRedirect(t, res, 'unsupported_response_type');
    const hybrid = await get(authorizePath(valid({ response_type: 'code id_token' })));
    assertErrorRedirect(t, hybrid, 'unsupported_response_type');
  });

  t.test('a scope with no supported value is redirected as invalid_scope (RFC 6749 3.3, 4.1.2.1)', async (t) => {
    assertErrorRedirect(t, await get(authorizePath(valid({ scope: 'admin everything' }))), 'invalid_scope');
    assertErrorRedirect(t, await get(authorizePath(valid({ scope: undefined }))), 'invalid_scope');
  });

  t.test('code_challenge_method=plain is redirected as invalid_request (RFC 7636 4.4.1, RFC 9700 2.1.1)', async (t) => {
    const res = await get(authorizePath(valid({ code_challenge_method: 'plain' })));
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('a code_challenge without a method (which defaults to plain) is redirected as invalid_request (RFC 7636 4.3)', async (t) => {
    const res = await get(authorizePath(valid({ code_challenge_method: undefined })));
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('a malformed S256 code_challenge is redirected as invalid_request (RFC 7636 4.2, 4.4.1)', async (t) => {
    for (const challenge of ['short', 'x'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}+`]) {
      const res = await get(authorizePath(valid({ code_challenge: challenge })));
      assertErrorRedirect(t, res, 'invalid_request');
    }
  });

  t.test('a public client without PKCE is redirected as invalid_request (RFC 9700 2.1.1)', async (t) => {
    const res = await get(
      authorizePath({
        response_type: 'code',
        client_id: PUBLIC.client_id,
        redirect_uri: PUBLIC.redirect_uris[0],
        scope: 'openid',
        state: 'st-123',
      }),
    );
    assertErrorRedirect(t, res, 'invalid_request', { redirectUri: PUBLIC.redirect_uris[0]! });
  });

  t.test('a public client with PKCE is let through to sign-in (RFC 7636 4.3)', async (t) => {
    const res = await get(authorizePath(valid({ client_id: PUBLIC.client_id, redirect_uri: PUBLIC.redirect_uris[0] })));
    t.equal(res.statusCode, 303);
    t.match(String(res.headers.location), new RegExp(`^${ISSUER}/interaction/`));
  });

  t.test('an unsigned request object is redirected as invalid_request_object (RFC 9101 6.3, OIDC Core 3.1.2.6)', async (t) => {
    const res = await get(authorizePath(valid({ request: 'eyJhbGciOiJub25lIn0.e30.' })));
    assertErrorRedirect(t, res, 'invalid_request_object');
  });

  t.test(
    'a request_uri not from the PAR endpoint is redirected as request_uri_not_supported (RFC 9101 5, OIDC Core 3.1.2.6)',
    async (t) => {
      const res = await get(authorizePath(valid({ request_uri: 'https://app.example/request.jwt' })));
      assertErrorRedirect(t, res, 'request_uri_not_supported');
    },
  );

  t.test('a repeated scope parameter is redirected as invalid_request (RFC 6749 3.1)', async (t) => {
    const res = await get(`${authorizePath(valid())}&scope=email`);
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('a repeated state is reported without echoing either value (RFC 6749 3.1, 4.1.2.1)', async (t) => {
    const res = await get(`${authorizePath(valid())}&state=other`);
    assertErrorRedirect(t, res, 'invalid_request', { state: null });
  });

  t.test('response_mode=fragment is redirected as invalid_request (OAuth 2.0 Multiple Response Types 2.1)', async (t) => {
    const res = await get(authorizePath(valid({ response_mode: 'fragment' })));
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('prompt=none without a session is redirected as login_required (OIDC Core 3.1.2.6)', async (t) => {
    const res = await get(authorizePath(valid({ prompt: 'none' })));
    assertErrorRedirect(t, res, 'login_required');
  });

  t.test('prompt=none with a session but no consent for this client is redirected as consent_required (OIDC Core 3.1.2.6)', async (t) => {
    // Sign in through another client, so that the session exists but CONFIDENTIAL has no consent.
    const { browser, location } = await signIn(
      app,
      valid({ client_id: SINGLE_REDIRECT.client_id, redirect_uri: SINGLE_REDIRECT.redirect_uris[0] }),
      { user: CAROL },
    );
    t.ok(location.searchParams.get('code'), 'signed in through the other client');
    const res = await browser.request(app, 'GET', authorizePath(valid({ prompt: 'none' })));
    assertErrorRedirect(t, res, 'consent_required');
  });

  t.test('prompt=none with a session and consent answers with a code at once (OIDC Core 3.1.2.1)', async (t) => {
    const { browser } = await signIn(app, valid({ client_id: SINGLE_REDIRECT.client_id, redirect_uri: SINGLE_REDIRECT.redirect_uris[0] }));
    const res = await browser.request(
      app,
      'GET',
      authorizePath(valid({ client_id: SINGLE_REDIRECT.client_id, redirect_uri: SINGLE_REDIRECT.redirect_uris[0], prompt: 'none' })),
    );
    t.equal(res.statusCode, 303);
    const location = new URL(String(res.headers.location));
    t.equal(`${location.origin}${location.pathname}`, SINGLE_REDIRECT.redirect_uris[0]);
    t.ok(location.searchParams.get('code'));
    t.equal(location.searchParams.get('iss'), ISSUER);
    t.equal(location.searchParams.get('state'), 'st-123');
  });

  t.test('prompt=none combined with another value is redirected as invalid_request (OIDC Core 3.1.2.1)', async (t) => {
    const res = await get(authorizePath(valid({ prompt: 'none login' })));
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('an error redirect keeps the query of the registered redirect URI (RFC 6749 3.1.2)', async (t) => {
    const redirectUri = CONFIDENTIAL.redirect_uris[1]!;
    const res = await get(authorizePath(valid({ redirect_uri: redirectUri, response_type: 'token' })));
    const location = assertErrorRedirect(t, res, 'unsupported_response_type', { redirectUri });
    t.equal(location.searchParams.get('keep'), '1');
    t.ok(String(res.headers.location).startsWith(`${redirectUri}&`), 'the registered query comes first, untouched');
  });

  t.test('a successful redirect keeps the query of the registered redirect URI (RFC 6749 3.1.2)', async (t) => {
    const redirectUri = CONFIDENTIAL.redirect_uris[1]!;
    const { location } = await signIn(app, valid({ redirect_uri: redirectUri }));
    t.equal(location.searchParams.get('keep'), '1');
    t.ok(location.searchParams.get('code'));
    t.ok(location.href.startsWith(`${redirectUri}&`));
  });

  t.test('POST to the authorization endpoint with a form body is validated like GET (OIDC Core 3.1.2.1)', async (t) => {
    const post = (form: Record<string, string | undefined>) => {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) if (v !== undefined) body.append(k, v);
      return app.inject({
        method: 'POST',
        url: '/sso/authorize',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      });
    };
    assertErrorRedirect(t, await post(valid({ response_type: 'token' })), 'unsupported_response_type');
    assertShownNotRedirected(t, await post(valid({ redirect_uri: 'https://evil.example/cb' })), /redirect_uri is not registered/);

    const started = await post(valid());
    t.equal(started.statusCode, 303);
    t.match(String(started.headers.location), new RegExp(`^${ISSUER}/interaction/[A-Za-z0-9_-]+$`));
    t.ok(
      started.cookies.some((c) => c.name === 'sso_interaction'),
      'the interaction cookie is set, as for GET',
    );
  });

  t.test('POST with a repeated parameter in the form body is redirected as invalid_request (RFC 6749 3.1)', async (t) => {
    const body = `${new URLSearchParams(valid() as Record<string, string>).toString()}&scope=email`;
    const res = await app.inject({
      method: 'POST',
      url: '/sso/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: body,
    });
    assertErrorRedirect(t, res, 'invalid_request');
  });

  t.test('POST with a body that is not form-serialized is refused on a page, not redirected (OIDC Core 3.1.2.1)', async (t) => {
    const bodies = [valid({ response_type: 'token' }), { ...valid(), scope: 5 }, { ...valid(), state: { nested: true } }];
    for (const payload of bodies) {
      const res = await app.inject({ method: 'POST', url: '/sso/authorize', payload });
      assertShownNotRedirected(t, res, /application\/x-www-form-urlencoded/);
    }
    const text = await app.inject({
      method: 'POST',
      url: '/sso/authorize',
      headers: { 'content-type': 'text/plain' },
      payload: new URLSearchParams(valid() as Record<string, string>).toString(),
    });
    assertShownNotRedirected(t, text, /application\/x-www-form-urlencoded/);
  });

  t.test('a query string that is not valid UTF-8 form encoding is shown an error page (RFC 6749 3.1, Appendix B)', async (t) => {
    for (const bad of ['%ZZ', '%C3%28', '%E2%82']) {
      const res = await get(`${authorizePath(valid())}&x=${bad}`);
      assertShownNotRedirected(t, res, /not valid UTF-8/);
    }
  });

  t.test(
    'a query parameter holding an encoded NUL is shown an error page, not redirected and not a 500 (RFC 6749 Appendix A)',
    async (t) => {
      for (const extra of ['state=a%00b', 'nonce=%00', 'x=%00']) {
        const res = await get(`${authorizePath(valid())}&${extra}`);
        assertShownNotRedirected(t, res, /NUL/);
      }
    },
  );

  t.test('a successful authorization response carries code, state and iss, with 303 (RFC 6749 4.1.2, RFC 9207 2)', async (t) => {
    const browser = new Browser();
    const { location } = await signIn(app, valid({ state: 'opaque state/with+chars&=' }), { browser });
    t.equal(`${location.origin}${location.pathname}`, CONFIDENTIAL.redirect_uris[0]);
    t.match(location.searchParams.get('code'), /^[A-Za-z0-9_-]{22,}$/);
    t.equal(location.searchParams.get('state'), 'opaque state/with+chars&=');
    t.equal(location.searchParams.get('iss'), ISSUER);
    t.notOk(location.searchParams.has('error'));

    // With consent remembered, the endpoint itself answers: check the status and headers of that redirect.
    const again = await browser.request(app, 'GET', authorizePath(valid()));
    t.equal(again.statusCode, 303);
    t.equal(again.headers['cache-control'], 'no-store');
    const direct = new URL(String(again.headers.location));
    t.ok(direct.searchParams.get('code'));
    t.equal(direct.searchParams.get('state'), 'st-123');
    t.equal(direct.searchParams.get('iss'), ISSUER);
  });

  t.test('a request without state gets a response without state (RFC 6749 4.1.2)', async (t) => {
    const { location } = await signIn(app, valid({ state: undefined }));
    t.ok(location.searchParams.get('code'));
    t.notOk(location.searchParams.has('state'));
    const failed = await get(authorizePath(valid({ state: undefined, response_type: 'token' })));
    assertErrorRedirect(t, failed, 'unsupported_response_type', { state: null });
  });

  t.test('unknown scope values are ignored, and the code is for the understood ones (OIDC Core 3.1.2.1)', async (t) => {
    const { verifier, challenge } = pkcePair();
    const { location } = await signIn(app, valid({ scope: 'openid offline_access_x email custom:read', code_challenge: challenge }));
    const code = location.searchParams.get('code');
    t.ok(code, 'a code despite the unknown scopes');
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      code_verifier: verifier,
    });
    t.equal(res.statusCode, 200, res.body);
    t.equal(res.json().scope, 'openid email');
  });

  t.test('unknown parameters are ignored (RFC 6749 3.1)', async (t) => {
    const res = await get(authorizePath(valid({ foo: 'bar', ui_locales: 'de' })));
    t.equal(res.statusCode, 303);
    t.match(String(res.headers.location), new RegExp(`^${ISSUER}/interaction/`));
  });
});
