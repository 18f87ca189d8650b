// openid-client v6 as the relying party of e2e tests: discovery on the loopback issuer, an authorization
// request with PKCE, state and nonce, and the redemption of its response with those checks.
import * as oidc from 'openid-client';
import { CONFIDENTIAL } from './app.js';
import type { ListeningApp } from './listening.js';

/** Discovery for `clientId` on the listening issuer (plain http, so insecure requests are allowed). */
export function discover(server: ListeningApp, clientId: string, auth: oidc.ClientAuth, secret?: string): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(server.issuer), clientId, secret, auth, { execute: [oidc.allowInsecureRequests] });
}

/** The confidential test client with client_secret_basic (openid-client defaults to client_secret_post). */
export function discoverConfidential(server: ListeningApp): Promise<oidc.Configuration> {
  return discover(server, CONFIDENTIAL.client_id, oidc.ClientSecretBasic(CONFIDENTIAL.client_secret), CONFIDENTIAL.client_secret);
}

export interface Attempt {
  config: oidc.Configuration;
  authorizationUrl: URL;
  verifier: string;
  nonce: string;
  state: string;
  /** What the authorization response and the token response are checked against; an ID token is expected. */
  checks: oidc.AuthorizationCodeGrantChecks & { pkceCodeVerifier: string; expectedNonce: string; expectedState: string };
}

/** An authorization request with PKCE S256, state and nonce; `extra` adds or overrides parameters. */
export async function prepareAttempt(
  config: oidc.Configuration,
  redirectUri: string,
  scope = 'openid profile email',
  extra: Record<string, string> = {},
): Promise<Attempt> {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const authorizationUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...extra,
  });
  const checks = { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true };
  return { config, authorizationUrl, verifier, nonce, state, checks };
}

/** Redeems the response to `attempt`: its callback URL (query) or the POST of its form_post page. */
export function redeem(attempt: Attempt, response: URL | Request) {
  return oidc.authorizationCodeGrant(attempt.config, response, attempt.checks);
}

/** What `promise` was rejected with, or undefined when it resolved. */
export function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}
