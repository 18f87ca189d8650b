// Interoperability of response_mode=form_post and id_token_hint: openid-client v6 as the relying party against
// the provider listening on loopback; the form_post page's POST is handed to openid-client as a Request.
import * as oidc from 'openid-client';
import t from 'tap';
import { BOB, CONFIDENTIAL } from '../../helpers/app.js';
import { CookieJar, formPostRequest, visitToClient } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discoverConfidential, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
const server = await listenTestApp(t);
const origin = new URL(server.baseUrl).origin;
const config = await discoverConfidential(server);

/** An authorization request answered by form_post unless `extra` says otherwise. */
function formPostAttempt(extra: Record<string, string> = {}) {
  return prepareAttempt(config, REDIRECT_URI, 'openid profile email', { response_mode: 'form_post', ...extra });
}

const jar = new CookieJar();
let aliceIdToken = '';
let aliceSub = '';

t.test(
  'openid-client completes the code flow with response_mode=form_post, from the posted form (Form Post Response Mode 2)',
  async (t) => {
    t.same(config.serverMetadata().response_modes_supported, ['query', 'form_post'], 'discovery advertises form_post');
    const flow = await formPostAttempt();
    t.equal(flow.authorizationUrl.searchParams.get('response_mode'), 'form_post');
    const answer = await visitToClient(origin, flow.authorizationUrl, { jar });
    if (answer.mode !== 'form_post') throw new Error(`expected a form_post page, got a redirect to ${answer.callback.href}`);
    t.same(answer.pages, ['login', 'consent']);
    t.equal(answer.form.action, REDIRECT_URI);
    t.same(
      answer.form.params.map(([name]) => name),
      ['code', 'state', 'iss'],
    );

    const tokens = await redeem(flow, formPostRequest(answer.form));
    const claims = tokens.claims();
    t.equal(claims?.iss, server.issuer);
    t.equal(claims?.aud, CONFIDENTIAL.client_id);
    t.equal(claims?.nonce, flow.nonce);
    t.match(claims?.sub, /^[0-9a-f-]{36}$/);
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims!.sub);
    t.equal(userinfo.email, 'alice@example.com');
    aliceIdToken = tokens.id_token!;
    aliceSub = claims!.sub;
  },
);

t.test('openid-client refuses a posted response whose state was changed, before any token request (RFC 6749 10.12)', async (t) => {
  const flow = await formPostAttempt();
  const answer = await visitToClient(origin, flow.authorizationUrl, { jar });
  if (answer.mode !== 'form_post') throw new Error('expected a form_post page');
  t.same(answer.pages, [], 'signed in and consented: the form comes at once');
  const forged = { ...answer.form, params: answer.form.params.map(([k, v]): [string, string] => [k, k === 'state' ? 'forged' : v]) };
  await t.rejects(redeem(flow, formPostRequest(forged)), { code: 'OAUTH_INVALID_RESPONSE' });
  const tokens = await redeem(flow, formPostRequest(answer.form));
  t.equal(tokens.claims()?.sub, aliceSub, 'the genuine post still redeems');
});

t.test('openid-client signs in silently with prompt=none and id_token_hint, by form_post (OIDC Core 3.1.2.1)', async (t) => {
  const flow = await formPostAttempt({ prompt: 'none', id_token_hint: aliceIdToken });
  const answer = await visitToClient(origin, flow.authorizationUrl, { jar });
  if (answer.mode !== 'form_post') throw new Error('expected a form_post page');
  t.same(answer.pages, [], 'no page shown');
  const tokens = await redeem(flow, formPostRequest(answer.form));
  t.equal(tokens.claims()?.sub, aliceSub, 'the same user');
});

t.test(
  'openid-client gets login_required, by form_post, for a hint naming another user than the signed-in one (OIDC Core 3.1.2.1)',
  async (t) => {
    // Bob signs in in another browser; his ID token is then a hint for alice's browser.
    const bobFlow = await formPostAttempt({ response_mode: 'query' });
    const bobAnswer = await visitToClient(origin, bobFlow.authorizationUrl, { user: BOB });
    if (bobAnswer.mode !== 'query') throw new Error('expected a redirect');
    const bobTokens = await redeem(bobFlow, bobAnswer.callback);
    t.not(bobTokens.claims()?.sub, aliceSub);

    const flow = await formPostAttempt({ prompt: 'none', id_token_hint: bobTokens.id_token! });
    const answer = await visitToClient(origin, flow.authorizationUrl, { jar });
    if (answer.mode !== 'form_post') throw new Error('expected a form_post page');
    const err = await rejection(redeem(flow, formPostRequest(answer.form)));
    t.ok(err instanceof oidc.AuthorizationResponseError, `an AuthorizationResponseError, got ${String(err)}`);
    t.equal((err as oidc.AuthorizationResponseError).error, 'login_required');
  },
);

t.test('openid-client gets invalid_request for an id_token_hint that is not ours (OIDC Core 3.1.2.1)', async (t) => {
  const [header, payload] = aliceIdToken.split('.');
  const flow = await formPostAttempt({ prompt: 'none', id_token_hint: `${header}.${payload}.AAAA`, response_mode: 'query' });
  const answer = await visitToClient(origin, flow.authorizationUrl, { jar });
  if (answer.mode !== 'query') throw new Error('expected a redirect');
  const err = await rejection(redeem(flow, answer.callback));
  t.ok(err instanceof oidc.AuthorizationResponseError, `an AuthorizationResponseError, got ${String(err)}`);
  t.equal((err as oidc.AuthorizationResponseError).error, 'invalid_request');
  t.equal(
    (err as oidc.AuthorizationResponseError).error_description,
    'id_token_hint is not an ID token issued by this server to this client',
  );
});
