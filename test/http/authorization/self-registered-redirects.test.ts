// RFC 9700 4.11.2 (Authorization Server as Open Redirector): with open registration anyone can register a client
// whose redirect URI is any site. Errors found before the person acted are therefore shown on a page that names the
// destination host, for a self-registered client, instead of being redirected there; an operator's client keeps its
// error redirects (RFC 6749 4.1.2.1). The consent and device pages name the host and mark such clients unverified.
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { ALICE, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { DEVICE_CODE_GRANT, enterCode, pageRequest, startDevice, TV } from '../../helpers/device.js';
import { authorizePath, basicAuth, Browser, formAction, hiddenField, localPath, obtainCode, pkcePair } from '../../helpers/flow.js';
import { manage, postRegistration, type ClientInformation } from '../../helpers/registration.js';

const EVIL_CB = 'https://evil.example/cb';
const UNVERIFIED = /registered itself[^<]*not verified by this provider/;
/** Any wording of the mark (the page's style sheet names a class .unverified, which is not text). */
const NOT_VERIFIED = /not verified|Unverified application|\(unverified\)/;

const { app } = await buildTestApp(t, {
  env: { REGISTRATION_OPEN: 'true' },
  seed: { clients: [...FIXTURES.clients, TV], users: FIXTURES.users },
});

async function registerOpenly(metadata: Record<string, unknown>): Promise<ClientInformation> {
  const res = await postRegistration(app, metadata, { token: null });
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode} ${res.body}`);
  return res.json() as ClientInformation;
}

const evil = await registerOpenly({ client_name: 'Demo App', redirect_uris: [EVIL_CB] });

const get = (url: string) => app.inject({ method: 'GET', url });

/** The page that stands in for an error redirect: 400, no Location, no script, names the host. */
function assertHeldBack(t: Test, res: LightMyRequestResponse, error: string, onward = `error=${error}`): void {
  t.equal(res.statusCode, 400, res.body.slice(0, 300));
  t.equal(res.headers.location, undefined, 'no Location header: nothing sends the browser on by itself');
  t.match(res.headers['content-type'], /^text\/html/);
  t.notMatch(res.body, /<script/i, 'no script, so no auto-submitted form');
  t.notMatch(String(res.headers['content-security-policy']), /script-src/);
  t.match(res.body, 'This request would have returned you to <strong>evil.example</strong>');
  t.match(res.body, UNVERIFIED);
  t.match(res.body, onward, 'the person may still follow the error response, by choice');
}

t.test('a self-registered client: an invalid response_type is shown, not redirected (RFC 9700 4.11.2)', async (t) => {
  const res = await get(authorizePath({ client_id: evil.client_id, response_type: 'x', redirect_uri: EVIL_CB, state: 's1' }));
  assertHeldBack(t, res, 'unsupported_response_type');
  t.match(res.body, /only response_type=code is supported/, 'says what went wrong');
  const link = /<a href="([^"]+)"/.exec(res.body)?.[1]?.replace(/&amp;/g, '&');
  t.ok(link, 'a plain link to the error response');
  const url = new URL(link!);
  t.equal(`${url.origin}${url.pathname}`, EVIL_CB);
  t.equal(url.searchParams.get('error'), 'unsupported_response_type');
  t.equal(url.searchParams.get('state'), 's1');
});

t.test('a self-registered client: with response_mode=form_post the error is not auto-submitted either', async (t) => {
  const res = await get(
    authorizePath({ client_id: evil.client_id, response_type: 'x', redirect_uri: EVIL_CB, response_mode: 'form_post' }),
  );
  assertHeldBack(t, res, 'unsupported_response_type', '<input type="hidden" name="error" value="unsupported_response_type">');
  t.match(res.body, '<form method="post" action="https://evil.example/cb">', 'a form the person submits, or not');
});

t.test('a self-registered client: bad scope and PKCE errors are shown too', async (t) => {
  const base = { client_id: evil.client_id, response_type: 'code', redirect_uri: EVIL_CB };
  assertHeldBack(t, await get(authorizePath({ ...base, scope: 'nothing-known' })), 'invalid_scope');
  assertHeldBack(
    t,
    await get(authorizePath({ ...base, scope: 'openid', code_challenge: 'x', code_challenge_method: 'plain' })),
    'invalid_request',
  );
  assertHeldBack(t, await get(authorizePath({ ...base, scope: 'openid', request: 'eyJ.eyJ.' })), 'invalid_request_object');
});

t.test('a self-registered client: prompt=none is not a way around it (login_required is shown)', async (t) => {
  const res = await get(
    authorizePath({ client_id: evil.client_id, response_type: 'code', redirect_uri: EVIL_CB, scope: 'openid', prompt: 'none' }),
  );
  assertHeldBack(t, res, 'login_required');
});

t.test('a client whose registration access token was revoked is still self-registered', async (t) => {
  const other = await registerOpenly({ client_name: 'Other', redirect_uris: ['https://other.example/cb'] });
  // RFC 7592 2.1: a token presented for another client is revoked (src/domain/clients/registration.ts ownClient).
  const revoked = await manage(app, 'GET', evil.client_id, other.registration_access_token);
  t.equal(revoked.statusCode, 401);
  const res = await get(authorizePath({ client_id: other.client_id, response_type: 'x', redirect_uri: 'https://other.example/cb' }));
  t.equal(res.statusCode, 400);
  t.equal(res.headers.location, undefined);
  t.match(res.body, '<strong>other.example</strong>');
});

t.test("an operator's client keeps its error redirects (RFC 6749 4.1.2.1)", async (t) => {
  const res = await get(
    authorizePath({ client_id: CONFIDENTIAL.client_id, response_type: 'x', redirect_uri: CONFIDENTIAL.redirect_uris[0], state: 's2' }),
  );
  t.equal(res.statusCode, 303);
  const location = new URL(String(res.headers.location));
  t.equal(location.searchParams.get('error'), 'unsupported_response_type');
  t.equal(location.searchParams.get('state'), 's2');
  const silent = await get(
    authorizePath({
      ...{ client_id: CONFIDENTIAL.client_id, redirect_uri: CONFIDENTIAL.redirect_uris[0] },
      response_type: 'code',
      scope: 'openid',
      prompt: 'none',
    }),
  );
  t.equal(silent.statusCode, 303, 'prompt=none still answers login_required by redirect (OIDC Core 3.1.2.6)');
  t.equal(new URL(String(silent.headers.location)).searchParams.get('error'), 'login_required');
});

/** Signs alice in through the request's sign-in page and returns the consent page. */
async function consentPageFor(params: Record<string, string>): Promise<{ page: LightMyRequestResponse; browser: Browser }> {
  const browser = new Browser();
  let res = await browser.request(app, 'GET', authorizePath(params));
  res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  const page = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  return { page, browser };
}

t.test('the consent page of a self-registered client names the host and says it is unverified', async (t) => {
  const params = { client_id: evil.client_id, response_type: 'code', redirect_uri: EVIL_CB, scope: 'openid profile', state: 's3' };
  const { page, browser } = await consentPageFor(params);
  t.equal(page.statusCode, 200, page.body.slice(0, 300));
  t.match(page.body, /Allow access\?/);
  t.match(page.body, 'you will be sent back to <strong>evil.example</strong>');
  t.match(page.body, UNVERIFIED);
  t.match(page.body, /Unverified application/);
  // The person saw the host and chose: Deny goes back to the client (RFC 6749 4.1.2.1 access_denied).
  const denied = await browser.request(app, 'POST', formAction(page.body), { csrf: hiddenField(page.body, 'csrf'), decision: 'deny' });
  t.equal(denied.statusCode, 303);
  t.equal(new URL(String(denied.headers.location)).searchParams.get('error'), 'access_denied');
});

t.test("the consent page of an operator's client names the host and does not say unverified", async (t) => {
  const { challenge } = pkcePair();
  const { page } = await consentPageFor({
    client_id: CONFIDENTIAL.client_id,
    response_type: 'code',
    redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
    scope: 'openid profile',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  t.equal(page.statusCode, 200, page.body.slice(0, 300));
  t.match(page.body, `you will be sent back to <strong>${new URL(CONFIDENTIAL.redirect_uris[0]!).host}</strong>`);
  t.notMatch(page.body, NOT_VERIFIED);
});

t.test('the device confirmation page marks a self-registered device client unverified (RFC 8628 5.4)', async (t) => {
  const device = await registerOpenly({ client_name: 'Living Room TV', grant_types: [DEVICE_CODE_GRANT] });
  const { browser } = await obtainCode(app);
  const started = await startDevice(app, { scope: 'openid' }, { auth: basicAuth(device.client_id, device.client_secret!) });
  const entered = await enterCode(app, browser, started.user_code);
  const confirm = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  t.equal(confirm.statusCode, 200, confirm.body.slice(0, 300));
  t.match(confirm.body, /Living Room TV/);
  t.match(confirm.body, UNVERIFIED);

  const seeded = await startDevice(app, { scope: 'openid' });
  const browser2 = (await obtainCode(app)).browser;
  const entered2 = await enterCode(app, browser2, seeded.user_code);
  const confirm2 = await pageRequest(app, browser2, 'GET', localPath(String(entered2.headers.location)));
  t.equal(confirm2.statusCode, 200);
  t.match(confirm2.body, TV.client_name);
  t.notMatch(confirm2.body, NOT_VERIFIED, "an operator's device client is not marked");
});
