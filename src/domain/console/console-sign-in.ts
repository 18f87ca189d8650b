// The console's side of the authorization code flow (OIDC Core 3.1, RFC 7636): the request it sends to
// /sso/authorize, and what it does with the code that comes back to /admin/callback. state, nonce and the PKCE
// verifier are all derived from one random value kept in the browser's cookie, so nothing is stored before sign-in.
// The code is redeemed in-process by the same grant function the token endpoint runs; the ID token is verified
// as any relying party would (our keys, iss, aud, nonce), then the console asks for a second factor (amr `mfa`) and
// an admin role.
import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import { findUserRole } from '../../storage/groups.js';
import { findUserById } from '../../storage/users.js';
import { loadClient } from '../clients/clients.js';
import type { ProviderContext } from '../context.js';
import { s256 } from '../authorization/pkce.js';
import { randomToken, safeEqual } from '../secrets.js';
import { exchangeAuthorizationCode } from '../tokens/grants/authorization-code.js';
import { CONSOLE_CLIENT_ID, consoleRedirectUri } from './console-client.js';

/** The values of one sign-in, each derived from the browser's binding value under its own label. */
function derived(binding: string, label: 'state' | 'nonce' | 'pkce'): string {
  return createHmac('sha256', binding).update(`sso-console ${label}`).digest('base64url');
}

export type Reauthentication = 'none' | 'login';

/**
 * A new binding value for the browser's cookie, and the authorization request URL made from it. `reauthenticate`
 * asks the user to sign in afresh (OIDC Core 3.1.2.1 prompt=login, max_age=0), as the console does when the last
 * sign-in lacked a second factor.
 */
export function consoleAuthorizationRequest(
  config: ProviderContext['config'],
  reauthenticate: Reauthentication = 'none',
): { binding: string; url: string } {
  const binding = randomToken();
  const url = new URL(`${config.issuer}/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', CONSOLE_CLIENT_ID);
  url.searchParams.set('redirect_uri', consoleRedirectUri(config));
  url.searchParams.set('scope', 'openid');
  url.searchParams.set('state', derived(binding, 'state'));
  url.searchParams.set('nonce', derived(binding, 'nonce'));
  // RFC 7636 4.2: S256.
  url.searchParams.set('code_challenge', s256(derived(binding, 'pkce')));
  url.searchParams.set('code_challenge_method', 'S256');
  if (reauthenticate === 'login') {
    url.searchParams.set('prompt', 'login');
    url.searchParams.set('max_age', '0');
  }
  return { binding, url: url.toString() };
}

/** How a callback ends: a person with a role, or why not. */
export type ConsoleSignIn =
  | { kind: 'signed-in'; userId: string; role: 'admin' | 'auditor' }
  /** The state does not match this browser's binding, or there is no binding: a forged or stale callback. */
  | { kind: 'bad-state' }
  /** The provider answered with an error (the user denied consent, say). */
  | { kind: 'refused' }
  /** Signed in, but without a second factor (no `mfa` in amr). */
  | { kind: 'no-second-factor' }
  /** Signed in, but the user has no console role (or is disabled). */
  | { kind: 'no-role' };

/** RFC 8176 2 `mfa`: the sign-in used more than one factor. */
const SECOND_FACTOR = 'mfa';

export async function finishConsoleSignIn(
  ctx: ProviderContext,
  binding: string | undefined,
  params: { state?: string; code?: string; error?: string },
): Promise<ConsoleSignIn> {
  // RFC 6749 10.12: the state binds the response to the browser that sent the request.
  if (!binding || params.state === undefined || !safeEqual(params.state, derived(binding, 'state'))) return { kind: 'bad-state' };
  if (params.error !== undefined || params.code === undefined) return { kind: 'refused' };
  const client = await loadClient(ctx.db, ctx.log, CONSOLE_CLIENT_ID);
  if (!client) return { kind: 'refused' };
  const tokens = await exchangeAuthorizationCode(ctx, client, {
    code: params.code,
    redirect_uri: consoleRedirectUri(ctx.config),
    code_verifier: derived(binding, 'pkce'),
  });
  if (tokens.id_token === undefined) return { kind: 'refused' };
  // OIDC Core 3.1.3.7: the signature with the provider's keys, iss, aud, exp, and the nonce sent (3.1.2.1).
  const { keys, algorithms } = ctx.keys.verificationKeys;
  const { payload } = await jwtVerify(tokens.id_token, keys, {
    issuer: ctx.config.issuer,
    audience: CONSOLE_CLIENT_ID,
    algorithms,
    currentDate: ctx.clock(),
  });
  if (payload.nonce !== derived(binding, 'nonce') || typeof payload.sub !== 'string') return { kind: 'bad-state' };
  const amr = Array.isArray(payload.amr) ? payload.amr : [];
  if (!amr.includes(SECOND_FACTOR)) return { kind: 'no-second-factor' };
  const [user, role] = await Promise.all([findUserById(ctx.db, payload.sub), findUserRole(ctx.db, payload.sub)]);
  if (!user || user.disabled_at !== null || role === undefined) return { kind: 'no-role' };
  return { kind: 'signed-in', userId: user.id, role };
}
