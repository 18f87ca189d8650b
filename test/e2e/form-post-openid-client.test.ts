// Interoperability of response_mode=form_post and id_token_hint: openid-client v6 as the relying party against
// the provider listening on loopback; the form_post page's POST is handed to openid-client as a Request.
import * as oidc from 'openid-client';
import t from 'tap';
import { BOB, CONFIDENTIAL } from '../helpers/app.js';
import { CookieJar, formPostRequest, visitToClient } from '../helpers/fetch-browser.js';
import { listenTestApp } from '../helpers/listening.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
const server = await listenTestApp(t);
const origin = new URL(server.baseUrl).origin;
const config = await oidc.discovery(
  new URL(server.issuer),
  CONFIDENTIAL.client_id,
  CONFIDENTIAL.client_secret,
  oidc.ClientSecretBasic(CONFIDENTIAL.client_secret),
  { execute: [oidc.allowInsecureRequests] },
);

async function attempt(extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    response_mode: 'form_post',
    ...extra,
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true } };
}

const jar = new CookieJar();
let aliceIdToken = '';
let aliceSub = '';

t.test('openid-client completes the code flow with response_mode=form_post, from the posted form (Form Post Response Mode 2)', async (t) => {
  t.same(config.serverMetadata().response_modes_supported, ['query', 'form_post'], 'discovery advertises form_post');
  const { url, checks } = await attempt();
  t.equal(url.searchParams.get('response_mode'), 'form_post');
  const answer = await visitToClient(origin, url, { jar });
  if (answer.mode !== 'form_post') throw new Error(`expected a form_post page, got a redirect to ${answer.callback.href}`);
  t.same(answer.pages, ['login', 'consent']);
  t.equal(answer.form.action, REDIRECT_URI);
  t.same(answer.form.params.map(([name]) => name), ['code', 'state', 'iss']);

  const tokens = await oidc.authorizationCodeGrant(config, formPostRequest(answer.form), checks);
  const claims = tokens.claims();
  t.equal(claims?.iss, server.issuer);
  t.equal(claims?.aud, CONFIDENTIAL.client_id);
  t.equal(claims?.nonce, checks.expectedNonce);
  t.match(claims?.sub, /^[0-9a-f-]{36}$/);
  const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims!.sub);
  t.equal(userinfo.email, 'alice@example.com');
  aliceIdToken = tokens.id_token!;
  aliceSub = claims!.sub;
});

t.test('openid-client refuses a posted response whose state was changed, before any token request (RFC 6749 10.12)', async (t) => {
  const { url, checks } = await attempt();
  const answer = await visitToClient(origin, url, { jar });
  if (answer.mode !== 'form_post') throw new Error('expected a form_post page');
  t.same(answer.pages, [], 'signed in and consented: the form comes at once');
  const forged = { ...answer.form, params: answer.form.params.map(([k, v]): [string, string] => [k, k === 'state' ? 'forged' : v]) };
  await t.rejects(oidc.authorizationCodeGrant(config, formPostRequest(forged), checks), { code: 'OAUTH_INVALID_RESPONSE' });
  const tokens = await oidc.authorizationCodeGrant(config, formPostRequest(answer.form), checks);
  t.equal(tokens.claims()?.sub, aliceSub, 'the genuine post still redeems');
});

t.test('openid-client signs in silently with prompt=none and id_token_hint, by form_post (OIDC Core 3.1.2.1)', async (t) => {
  const { url, checks } = await attempt({ prompt: 'none', id_token_hint: aliceIdToken });
  const answer = await visitToClient(origin, url, { jar });
  if (answer.mode !== 'form_post') throw new Error('expected a form_post page');
  t.same(answer.pages, [], 'no page shown');
  const tokens = await oidc.authorizationCodeGrant(config, formPostRequest(answer.form), checks);
  t.equal(tokens.claims()?.sub, aliceSub, 'the same user');
});

t.test('openid-client gets login_required, by form_post, for a hint naming another user than the signed-in one (OIDC Core 3.1.2.1)', async (t) => {
  // Bob signs in in another browser; his ID token is then a hint for alice's browser.
  const bobFlow = await attempt({ response_mode: 'query' });
  const bobAnswer = await visitToClient(origin, bobFlow.url, { user: BOB });
  if (bobAnswer.mode !== 'query') throw new Error('expected a redirect');
  const bobTokens = await oidc.authorizationCodeGrant(config, bobAnswer.callback, bobFlow.checks);
  t.not(bobTokens.claims()?.sub, aliceSub);

  const { url, checks } = await attempt({ prompt: 'none', id_token_hint: bobTokens.id_token! });
  const answer = await visitToClient(origin, url, { jar });
  if (answer.mode !== 'form_post') throw new Error('expected a form_post page');
  const err = await oidc.authorizationCodeGrant(config, formPostRequest(answer.form), checks).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof oidc.AuthorizationResponseError, `an AuthorizationResponseError, got ${String(err)}`);
  t.equal((err as oidc.AuthorizationResponseError).error, 'login_required');
});

t.test('openid-client gets invalid_request for an id_token_hint that is not ours (OIDC Core 3.1.2.1)', async (t) => {
  const [header, payload] = aliceIdToken.split('.');
  const { url, checks } = await attempt({ prompt: 'none', id_token_hint: `${header}.${payload}.AAAA`, response_mode: 'query' });
  const answer = await visitToClient(origin, url, { jar });
  if (answer.mode !== 'query') throw new Error('expected a redirect');
  const err = await oidc.authorizationCodeGrant(config, answer.callback, checks).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof oidc.AuthorizationResponseError, `an AuthorizationResponseError, got ${String(err)}`);
  t.equal((err as oidc.AuthorizationResponseError).error, 'invalid_request');
  t.equal((err as oidc.AuthorizationResponseError).error_description, 'id_token_hint is not an ID token issued by this server to this client');
});
