// The one interactive sign-in (untimed), then every kind of operation once, checked end to end, before any
// load: a server that cannot complete a flow fails here with a clear message rather than as a table of errors.
import type { JSONWebKeySet } from 'jose';
import { CookieJar } from './cookie-jar.js';
import { HttpClient } from './http-client.js';
import { IdTokenSamples } from './id-token-samples.js';
import { OFFLINE_SCOPE, type OidcClient } from './oidc-client.js';
import { signInWithForms } from './sign-in.js';

export interface SignedIn {
  /** The browser's cookies after signing in and consenting. */
  session: CookieJar;
  sub: string;
  jwks: JSONWebKeySet;
  /** The ID token signing algorithm (RS256 unless the client registered another). */
  idTokenAlgs: string[];
}

export async function signInAndCheck(oidc: OidcClient, origin: URL): Promise<SignedIn> {
  const http = new HttpClient(origin, 2);
  try {
    await oidc.document(http, oidc.discoveryPath, 'discovery');
    await oidc.document(http, oidc.jwksPath, 'jwks');
    const jwks = JSON.parse((await http.request('GET', oidc.jwksPath)).body) as JSONWebKeySet;

    // The first sign-in asks for offline_access too, so that the consent also covers the refresh scenario.
    const session = new CookieJar();
    const first = oidc.newAuthRequest(OFFLINE_SCOPE);
    const { username, password } = oidc.fixtures;
    const firstTokens = await oidc.exchange(
      http,
      await signInWithForms(oidc, http, session, first, { username, password, answerConsent: true }),
    );
    const { sub } = await oidc.userinfo(http, firstTokens.access_token);
    if (!firstTokens.refresh_token) throw new Error('the first sign-in (with offline_access) gave no refresh token');

    const issued = await oidc.authorize(http, session);
    const tokens = await oidc.exchange(http, issued);
    const refreshed = await oidc.refresh(http, firstTokens.refresh_token);
    await oidc.clientCredentials(http);

    const samples = new IdTokenSamples(1);
    samples.offer({ idToken: firstTokens.id_token!, nonce: first.nonce, sub });
    samples.offer({ idToken: tokens.id_token!, nonce: issued.nonce, sub });
    samples.offer({ idToken: refreshed.id_token!, nonce: null, sub });
    const check = await samples.verify(jwks, oidc.issuer, oidc.fixtures.clientId);
    if (check.ok !== check.checked) throw new Error(`ID token verification failed: ${JSON.stringify(check.failures)}`);
    return { session, sub, jwks, idTokenAlgs: Object.keys(check.algs) };
  } finally {
    http.close();
  }
}
