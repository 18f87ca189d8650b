// Interoperability of DPoP (RFC 9449): openid-client v6 binds its tokens to a key of its own (getDPoPHandle), follows
// the server's nonce (use_dpop_nonce) by itself, refreshes, and reads userinfo with proofs, over real HTTP.
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, FIXTURES } from '../../helpers/app.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, prepareAttempt } from '../../helpers/relying-party.js';

const REDIRECT = 'http://127.0.0.1/native/cb';
const NATIVE = {
  client_id: 'native',
  token_endpoint_auth_method: 'none' as const,
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  dpop_bound_access_tokens: true,
};

t.test('openid-client with DPoP and server nonces: code flow, refresh and userinfo, all bound to one key', async (t) => {
  const server = await listenTestApp(t, {
    seed: { ...FIXTURES, clients: [...FIXTURES.clients, NATIVE] },
    env: { DPOP_NONCE_REQUIRED: 'true' },
  });
  const config = await discover(server, NATIVE.client_id, oidc.None());
  t.ok(config.serverMetadata().dpop_signing_alg_values_supported?.includes('ES256'));
  const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const attempt = await prepareAttempt(config, REDIRECT, 'openid profile offline_access');
  const { callback } = await visit(server, attempt.authorizationUrl);
  const tokens = await oidc.authorizationCodeGrant(config, callback, attempt.checks, undefined, { DPoP: dpop });
  t.equal(tokens.token_type.toLowerCase(), 'dpop', 'RFC 9449 5: a DPoP-bound access token');
  const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub, { DPoP: dpop });
  t.equal(info.name, ALICE.name);
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
  t.equal(refreshed.token_type.toLowerCase(), 'dpop');
  const otherKey = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const stolen = await oidc.refreshTokenGrant(config, refreshed.refresh_token!, undefined, { DPoP: otherKey }).then(
    () => 'accepted',
    (err: unknown) => (err instanceof oidc.ResponseBodyError ? err.error : String(err)),
  );
  t.equal(stolen, 'invalid_grant', "RFC 9449 5: the public client's refresh token needs its own key");
});

// RFC 9449 10 and 10.1: the authorization code bound to the DPoP key, by dpop_jkt in the front channel, or by the
// proof openid-client sends with its pushed request.
t.test('openid-client binds the code to its DPoP key by dpop_jkt, or by a proof with PAR; another key cannot redeem it', async (t) => {
  const server = await listenTestApp(t, {
    seed: { ...FIXTURES, clients: [...FIXTURES.clients, NATIVE] },
    env: { DPOP_NONCE_REQUIRED: 'true' },
  });
  const config = await discover(server, NATIVE.client_id, oidc.None());
  const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const otherKey = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (err: unknown) => (err instanceof oidc.ResponseBodyError ? err.error : String(err)),
    );

  const byThumbprint = await prepareAttempt(config, REDIRECT, 'openid', { dpop_jkt: await dpop.calculateThumbprint() });
  const first = (await visit(server, byThumbprint.authorizationUrl)).callback;
  t.equal(
    await refusal(oidc.authorizationCodeGrant(config, first, byThumbprint.checks, undefined, { DPoP: otherKey })),
    'invalid_grant',
    'RFC 9449 10: a proof by another key than dpop_jkt names',
  );
  const second = await prepareAttempt(config, REDIRECT, 'openid', { dpop_jkt: await dpop.calculateThumbprint() });
  const tokens = await oidc.authorizationCodeGrant(
    config,
    (await visit(server, second.authorizationUrl)).callback,
    second.checks,
    undefined,
    {
      DPoP: dpop,
    },
  );
  t.equal(tokens.token_type.toLowerCase(), 'dpop');

  const pushedAttempt = await prepareAttempt(config, REDIRECT, 'openid');
  const pushed = await oidc.buildAuthorizationUrlWithPAR(config, pushedAttempt.authorizationUrl.searchParams, { DPoP: dpop });
  const callback = (await visit(server, pushed)).callback;
  t.equal(
    await refusal(oidc.authorizationCodeGrant(config, callback, pushedAttempt.checks, undefined, { DPoP: otherKey })),
    'invalid_grant',
    'RFC 9449 10.1: the proof sent with the push bound the code',
  );
  const again = await prepareAttempt(config, REDIRECT, 'openid');
  const url = await oidc.buildAuthorizationUrlWithPAR(config, again.authorizationUrl.searchParams, { DPoP: dpop });
  const bound = await oidc.authorizationCodeGrant(config, (await visit(server, url)).callback, again.checks, undefined, { DPoP: dpop });
  t.equal(bound.token_type.toLowerCase(), 'dpop');
});
