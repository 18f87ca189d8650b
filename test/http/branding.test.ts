// Branding by settings (BRAND_NAME, BRAND_LOGO_URL, BRAND_COLOR) on every page, and the client's own links on the
// consent page (RFC 7591 2: logo_uri, client_uri, policy_uri, tos_uri), its logo only for a client an admin registered.
import t from 'tap';
import { ALICE, buildTestApp, CONFIDENTIAL, FIXTURES } from '../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, pkcePair } from '../helpers/flow.js';
import { postRegistration } from '../helpers/registration.js';

const NOTES = {
  client_id: 'notes',
  client_secret: 'notes-secret-0123456789abcdef',
  client_name: 'Notes',
  redirect_uris: ['https://notes.example/cb'],
  logo_uri: 'https://notes.example/logo.png',
  client_uri: 'https://notes.example/',
  policy_uri: 'https://notes.example/privacy',
  tos_uri: 'https://notes.example/terms',
};

const { app } = await buildTestApp(t, {
  env: { BRAND_NAME: 'Acme', BRAND_LOGO_URL: 'https://cdn.acme.example/logo.svg', BRAND_COLOR: '#0B5FFF', REGISTRATION_OPEN: 'true' },
  seed: { clients: [...FIXTURES.clients, NOTES], users: FIXTURES.users },
});

/** The consent page for `clientId`, reached by signing in as alice. */
async function consentPage(clientId: string, redirectUri: string): Promise<string> {
  const browser = new Browser();
  const query = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid profile' };
  const started = await browser.request(
    app,
    'GET',
    authorizePath({ ...query, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }),
  );
  const login = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  const signedIn = await browser.request(app, 'POST', formAction(login.body), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  const consent = await browser.request(app, 'GET', localPath(String(signedIn.headers.location)));
  if (!consent.body.includes('name="decision"')) throw new Error(`no consent page: ${consent.body.slice(0, 300)}`);
  return consent.body;
}

t.test('every page shows the logo, named by BRAND_NAME, and links the colour stylesheet, which this origin serves', async (t) => {
  const page = await app.inject({ method: 'GET', url: '/sso/account/forgot' });
  t.equal(page.statusCode, 200);
  t.match(
    page.body,
    '<p class="brand"><img src="https://cdn.acme.example/logo.svg" alt="Acme"></p>',
    'WCAG 2.1 1.1.1: the logo says the name',
  );
  t.match(page.body, '<link rel="stylesheet" href="http://localhost:3000/sso/branding.css">');
  t.match(String(page.headers['content-security-policy']), /img-src 'self' data: https:;/, 'the pages may show an https logo');

  const css = await app.inject({ method: 'GET', url: '/sso/branding.css' });
  t.equal(css.statusCode, 200);
  t.match(css.headers['content-type'], /^text\/css/);
  t.match(css.body, 'button{background:#0b5fff;border-color:#0b5fff}');
  t.match(css.headers['cache-control'], 'public');
});

t.test('the consent page shows the logo and the links an admin registered for the client, each opening apart', async (t) => {
  const body = await consentPage(NOTES.client_id, NOTES.redirect_uris[0]!);
  t.match(body, '<img class="client-logo" src="https://notes.example/logo.png" alt="">', 'the logo, decorative beside the name');
  for (const [url, text] of [
    ['https://notes.example/', "Notes's website"],
    ['https://notes.example/privacy', "Notes's privacy policy"],
    ['https://notes.example/terms', "Notes's terms of service"],
  ] as const) {
    t.match(body, `<a href="${url}" target="_blank" rel="noopener noreferrer">${text.replace("'", '&#39;')}</a>`, text);
  }
  const plain = await consentPage(CONFIDENTIAL.client_id, CONFIDENTIAL.redirect_uris[0]!);
  t.notMatch(plain, 'class="client-logo"', 'a client without a logo shows none');
  t.notMatch(plain, 'class="client-links"', 'nor links it did not register');
});

t.test("a self-registered client's links are shown, its logo is not: a logo is too easily another brand's", async (t) => {
  const res = await postRegistration(
    app,
    {
      client_name: 'Lookalike',
      redirect_uris: ['https://lookalike.example/cb'],
      logo_uri: 'https://lookalike.example/bank-logo.png',
      policy_uri: 'https://lookalike.example/privacy',
    },
    { token: null },
  );
  t.equal(res.statusCode, 201, res.body);
  const body = await consentPage(res.json().client_id, 'https://lookalike.example/cb');
  t.notMatch(body, 'bank-logo.png');
  t.match(body, '<a href="https://lookalike.example/privacy" target="_blank" rel="noopener noreferrer">');
  t.match(body, 'Unverified application');
});

t.test('without BRAND_* the pages show the host name and no stylesheet, and there is none to fetch', async (t) => {
  const plain = await buildTestApp(t);
  const page = await plain.app.inject({ method: 'GET', url: '/sso/account/forgot' });
  t.match(page.body, '<p class="brand">localhost</p>');
  t.notMatch(page.body, '<link rel="stylesheet"');
  t.equal((await plain.app.inject({ method: 'GET', url: '/sso/branding.css' })).statusCode, 404);
});
