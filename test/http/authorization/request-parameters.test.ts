// Authorization request parameters that are accepted and not acted upon (OIDC Core 3.1.2.1: display,
// ui_locales, claims_locales, acr_values), and the prompt values not covered elsewhere.
import t from 'tap';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { authorizePath, formAction, hiddenField, localPath, obtainCode, pkcePair, signIn, tokenRequest } from '../../helpers/flow.js';

const ISSUER = 'http://localhost:3000/sso';
const { app } = await buildTestApp(t);

function request(overrides: Record<string, string | undefined> = {}) {
  return {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid profile',
    state: 'st-params',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

const IGNORED = {
  display: 'popup',
  ui_locales: 'fr-CA fr en',
  claims_locales: 'de',
  acr_values: 'urn:mace:incommon:iap:silver 2',
};

t.test('OIDC Core 3.1.2.1: display, ui_locales, claims_locales and acr_values are accepted on a new sign-in', async (t) => {
  const { location } = await signIn(app, request(IGNORED));
  t.equal(`${location.origin}${location.pathname}`, CONFIDENTIAL.redirect_uris[0]);
  t.equal(location.searchParams.get('error'), null, `no error: ${location.searchParams.get('error_description')}`);
  t.match(location.searchParams.get('code'), /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/, 'the moment it was made, then 256 random bits');
  t.equal(location.searchParams.get('state'), 'st-params');
});

t.test(
  'OIDC Core 3.1.2.1: each of display, ui_locales, claims_locales and acr_values, alone, changes nothing on the fast path',
  async (t) => {
    const { browser } = await obtainCode(app, { scope: 'openid profile' });
    for (const [name, value] of Object.entries({ ...IGNORED, display: 'page' })) {
      const res = await browser.request(app, 'GET', authorizePath(request({ [name]: value, prompt: 'none' })));
      t.equal(res.statusCode, 303, name);
      const location = new URL(String(res.headers.location));
      t.ok(location.searchParams.get('code'), `${name}=${value}: a code at once`);
      t.equal(location.searchParams.get('iss'), ISSUER);
    }
  },
);

t.test('OIDC Core 3.1.2.1: an ID token issued after acr_values carries no acr claim (none is supported)', async (t) => {
  const grant = await obtainCode(app, IGNORED);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  t.equal(res.statusCode, 200, res.body);
  const claims = JSON.parse(Buffer.from((res.json().id_token as string).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  t.notOk('acr' in claims, 'no acr claim');
});

t.test('OIDC Core 3.1.2.1: prompt=select_account shows the sign-in page even with a session (one account per browser)', async (t) => {
  const { browser } = await obtainCode(app);
  const res = await browser.request(app, 'GET', authorizePath(request({ prompt: 'select_account' })));
  t.equal(res.statusCode, 303);
  const location = String(res.headers.location);
  t.match(location, new RegExp(`^${ISSUER}/interaction/[A-Za-z0-9_-]+$`), 'not back to the client with a code');
  const page = await browser.request(app, 'GET', localPath(location));
  t.equal(page.statusCode, 200);
  t.match(page.body, /type="password"/, 'the sign-in form');
});

t.test('OIDC Core 3.1.2.1: an unknown prompt value is redirected as invalid_request', async (t) => {
  const res = await app.inject({ method: 'GET', url: authorizePath(request({ prompt: 'login bogus' })) });
  t.equal(res.statusCode, 303);
  const location = new URL(String(res.headers.location));
  t.equal(location.searchParams.get('error'), 'invalid_request');
  t.equal(location.searchParams.get('error_description'), 'unsupported prompt value');
  t.equal(location.searchParams.get('state'), 'st-params');
});

t.test('OIDC Core 3.1.2.1: prompt="login consent" asks to sign in, then for consent although it was given', async (t) => {
  const { browser } = await obtainCode(app);
  const res = await browser.request(app, 'GET', authorizePath(request({ prompt: 'login consent' })));
  const login = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  t.match(login.body, /type="password"/, 'the sign-in form first');
  const posted = await browser.request(app, 'POST', formAction(login.body), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(posted.statusCode, 303);
  const consent = await browser.request(app, 'GET', localPath(String(posted.headers.location)));
  t.equal(consent.statusCode, 200);
  t.match(consent.body, /name="decision" value="allow"/, 'then the consent page');
});
