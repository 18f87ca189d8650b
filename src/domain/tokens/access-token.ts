// Access tokens: opaque values (for this provider's userinfo, or a resource server that introspects them), or
// RFC 9068 JWTs for a resource server that asked for them. The grant prepares both forms before its statement; the
// statement stores the one the token's audience wants (src/storage/access-token-target.ts), and the grant hands out
// that one. A JWT's row is found by the digest of its jti, so revocation and introspection work for it too.
import { CompactSign, jwtVerify } from 'jose';
import type { StoredAccessToken, AccessTokenTargetValues } from '../../storage/access-token-target.js';
import type { Client } from '../clients/clients.js';
import { addSeconds, epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { isSigningAlg } from '../keys/signing-algs.js';
import { storedKey } from '../secrets.js';
import { organizationClaims } from './organization-claims.js';

/** RFC 9068 2.1: "Resource servers MUST verify that the "typ" header value is "at+jwt"". */
export const JWT_ACCESS_TOKEN_TYP = 'at+jwt';

/** The digest a JWT access token's row is kept under: never the digest of an opaque value (see opaqueTokenHash). */
export function jwtAccessTokenKey(jti: string): string {
  return storedKey(jti, `jwt:${jti}`);
}

/**
 * The digest an opaque token's row is kept under, or undefined for a value no opaque token of ours can have (ours are
 * base64url): so that "jwt:" and a JWT's jti, presented as an opaque token, never finds that JWT's row.
 */
export function opaqueTokenHash(token: string): string | undefined {
  return /^[A-Za-z0-9_-]{16,128}$/.test(token) ? storedKey(token) : undefined;
}

export interface PreparedAccessToken {
  opaque: string;
  jti: string;
  /**
   * The request names a resource or the client has a default one: the grant's statement with the resource rules
   * decides the token's audience (access-token-target.ts). Otherwise the plain statement runs first.
   */
  resources: boolean;
  /** The statement's values (all but atIssuedAt). */
  target: Omit<AccessTokenTargetValues, 'atIssuedAt'>;
}

/** Both forms of the next access token, for a token request naming `resource` (null: none). */
export function prepareAccessToken(
  ctx: ProviderContext,
  client: Client,
  resource: string | null,
  now: Date,
  /** RFC 9449 6: the thumbprint of the DPoP key of the request's proof; null: a bearer token. */
  jkt: string | null = null,
): PreparedAccessToken {
  const opaque = ctx.random.timedToken(now);
  const jti = ctx.random.timedToken(now, 16);
  return {
    opaque,
    jti,
    resources: resource !== null || client.defaultResource !== null,
    target: {
      atResource: resource,
      atDefaultResource: client.defaultResource,
      atOpaqueHash: storedKey(opaque),
      atJwtHash: jwtAccessTokenKey(jti),
      atDefaultExpiresAt: addSeconds(now, ctx.config.accessTokenTtlSeconds),
      atJkt: jkt,
    },
  };
}

export interface IssuedAccessToken {
  value: string;
  /** RFC 9449 5: DPoP for a token bound to a key, else Bearer (RFC 6750). */
  tokenType: 'Bearer' | 'DPoP';
  expiresIn: number;
  scope: string;
}

export interface AccessTokenSubject {
  clientId: string;
  /**
   * The user's subject as this client sees it (pairwise or not, as in its ID tokens); for a client_credentials token,
   * the client's id (RFC 9068 2.2).
   */
  subject: string;
  /** When the user signed in; null for a client_credentials token. */
  authTime: Date | null;
  /** The sign-in's authentication context class (OIDC Core 2 `acr`), when one is known. */
  acr?: string | null;
  /** Issue 40: the claims of the organization the grant is for (organization-claims.ts); absent or null: none. */
  organization?: unknown;
  now: Date;
}

/** The token as the statement stored it: the opaque value, or the JWT signed now for its resource server. */
export async function finishAccessToken(
  ctx: ProviderContext,
  prepared: PreparedAccessToken,
  stored: StoredAccessToken,
  who: AccessTokenSubject,
): Promise<IssuedAccessToken> {
  const expiresIn = Math.max(0, Math.round((stored.at_expires_at.getTime() - who.now.getTime()) / 1000));
  const tokenType = prepared.target.atJkt === null ? 'Bearer' : 'DPoP';
  if (stored.at_hash !== prepared.target.atJwtHash || stored.at_audience === null) {
    return { value: prepared.opaque, tokenType, expiresIn, scope: stored.at_scope };
  }
  const value = await signJwtAccessToken(
    ctx,
    Object.assign({}, who, {
      audience: stored.at_audience,
      scope: stored.at_scope,
      jti: prepared.jti,
      expiresAt: stored.at_expires_at,
      alg: stored.at_signing_alg,
      jkt: prepared.target.atJkt,
    }),
  );
  return { value, tokenType, expiresIn, scope: stored.at_scope };
}

const utf8 = new TextEncoder();

/**
 * RFC 9068 2.2: iss, exp, aud, sub, client_id, iat, jti; scope (2.2.3); auth_time when a user signed in, and acr
 * when its class is known (2.2.1).
 * Built by hand and signed as a compact JWS, as ID tokens are (src/domain/tokens/id-token.ts).
 */
async function signJwtAccessToken(
  ctx: ProviderContext,
  t: AccessTokenSubject & { audience: string; scope: string; jti: string; expiresAt: Date; alg: string | null; jkt: string | null },
): Promise<string> {
  const key = ctx.keys.signer(isSigningAlg(t.alg) ? t.alg : 'RS256');
  const claims: Record<string, unknown> = {
    iss: ctx.config.issuer,
    sub: t.subject,
    aud: t.audience,
    client_id: t.clientId,
    iat: epochSeconds(t.now),
    exp: epochSeconds(t.expiresAt),
    jti: t.jti,
    scope: t.scope,
  };
  if (t.authTime !== null) claims.auth_time = epochSeconds(t.authTime);
  if (t.acr) claims.acr = t.acr;
  // RFC 9449 6.1: a DPoP-bound JWT names the key's thumbprint in cnf.jkt.
  if (t.jkt !== null) claims.cnf = { jkt: t.jkt };
  // RFC 9068 2.2: further claims about the authentication are allowed; issue 40's org_id, org_name (and org_roles).
  const organization = organizationClaims(t.organization);
  for (const name in organization) if (!Object.hasOwn(claims, name)) claims[name] = organization[name];
  return new CompactSign(utf8.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: JWT_ACCESS_TOKEN_TYP })
    .sign(key.privateKey);
}

/**
 * The row key of a JWT access token this provider issued and that has not expired (RFC 9068 4: our signature, typ
 * at+jwt, our iss); undefined for anything else.
 */
export async function jwtAccessTokenRowKey(ctx: ProviderContext, token: string): Promise<string | undefined> {
  if (token.split('.').length !== 3) return undefined;
  const { keys, algorithms } = ctx.keys.verificationKeys;
  try {
    const { payload } = await jwtVerify(token, keys, {
      algorithms,
      typ: JWT_ACCESS_TOKEN_TYP,
      issuer: ctx.config.issuer,
      currentDate: ctx.clock(),
      requiredClaims: ['jti', 'exp'],
    });
    return typeof payload.jti === 'string' ? jwtAccessTokenKey(payload.jti) : undefined;
  } catch {
    return undefined;
  }
}
