// Per-client ID token signing algorithms end to end: for each of RS256, PS256, ES256 and EdDSA, openid-client v6,
// told the client's id_token_signed_response_alg, signs a user in over HTTP and verifies the ID token against the
// JWKS it discovers.
import { decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import t from 'tap';
import { SIGNING_ALGS, type SigningAlg } from '../../../src/domain/keys/signing-algs.js';
import { ALICE } from '../../helpers/app.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';

const clientOf = (alg: SigningAlg) => ({
  client_id: `rp-${alg.toLowerCase()}`,
  client_secret: `rp-${alg.toLowerCase()}-secret-0123456789`,
  redirect_uris: [`https://rp-${alg.toLowerCase()}.example/cb`],
  ...(alg === 'RS256' ? {} : { id_token_signed_response_alg: alg }),
});

/** Follows the provider's pages like a browser (cookies, forms) until it redirects to the client; never fetches the client. */
async function signIn(server: ListeningApp, authorizationUrl: URL): Promise<URL> {
  const cookies = new Map<string, string>();
  const origin = new URL(server.baseUrl).origin;
  let url = authorizationUrl;
  let form: Record<string, string> | undefined;
  for (let step = 0; step < 10; step += 1) {
    if (url.origin !== origin) throw new Error(`refusing to leave the loopback server: ${url.href}`);
    const headers: Record<string, string> = { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form && new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (/max-age=0/i.test(line) || eq === pair.length - 1) cookies.delete(pair.slice(0, eq));
      else cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    if (res.status === 302 || res.status === 303) {
      const location = new URL(res.headers.get('location')!, url);
      await res.body?.cancel();
      if (location.origin !== origin) return location;
      url = location;
      form = undefined;
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`sign-in stopped at HTTP ${res.status}: ${page.slice(0, 300)}`);
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1];
    if (!action || !csrf) throw new Error(`no form in ${page.slice(0, 300)}`);
    url = new URL(action, url);
    form = page.includes('type="password"') ? { csrf, login: ALICE.username, password: ALICE.password } : { csrf, decision: 'allow' };
  }
  throw new Error('sign-in did not finish in 10 steps');
}

const server = await listenTestApp(t, { seed: { clients: SIGNING_ALGS.map(clientOf), users: [ALICE] } });
const jwks = (await (await fetch(`${server.issuer}/jwks`)).json()) as { keys: Array<{ kid: string; alg: string }> };

t.test('discovery advertises exactly the algorithms the JWKS has a key for (Discovery 3, OIDC Core 10.1)', async (t) => {
  const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  t.same(doc.id_token_signing_alg_values_supported, ['RS256', 'PS256', 'ES256', 'EdDSA']);
  t.same(
    jwks.keys.map((k) => k.alg),
    doc.id_token_signing_alg_values_supported,
    'one published key per advertised algorithm',
  );
});

for (const alg of SIGNING_ALGS) {
  t.test(
    `openid-client verifies an ID token signed with ${alg} for a client registered with it (OIDC Registration 2, Core 3.1.3.7)`,
    async (t) => {
      const client = clientOf(alg);
      const config = await oidc.discovery(
        new URL(server.issuer),
        client.client_id,
        { client_secret: client.client_secret, id_token_signed_response_alg: alg },
        oidc.ClientSecretBasic(client.client_secret),
        { execute: [oidc.allowInsecureRequests] },
      );
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const state = oidc.randomState();
      const authorizationUrl = oidc.buildAuthorizationUrl(config, {
        redirect_uri: client.redirect_uris[0]!,
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      });
      const callback = await signIn(server, authorizationUrl);
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedNonce: nonce,
        expectedState: state,
        idTokenExpected: true,
      });
      const header = decodeProtectedHeader(tokens.id_token!);
      t.equal(header.alg, alg, `the ID token is signed with ${alg}`);
      t.equal(header.kid, jwks.keys.find((k) => k.alg === alg)?.kid, `with the published ${alg} key`);
      const claims = tokens.claims()!;
      t.equal(claims.aud, client.client_id);
      t.equal(claims.nonce, nonce);
      t.type(claims.at_hash, 'string');
      t.equal((await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)).email, ALICE.email);
    },
  );
}
