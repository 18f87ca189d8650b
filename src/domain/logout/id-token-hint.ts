// Verifies an id_token_hint: an ID token this provider issued to the requesting client (OIDC Core 3.1.2.1).
import { compactVerify } from 'jose';
import { InvalidRequest, type OAuthErrorOptions } from '../../errors/oauth-error.js';
import type { ProviderContext } from '../context.js';
import { ID_TOKEN_TYP } from '../tokens/id-token.js';

export interface IdTokenHint {
  /** The user the client believes is signed in. */
  subject: string;
}

function invalid(why: OAuthErrorOptions): InvalidRequest {
  return new InvalidRequest('id_token_hint is not an ID token issued by this server to this client', why);
}

/** What an ID token we issued says about its user, session and clients. */
export interface VerifiedIdToken {
  subject: string;
  audiences: string[];
  /** The session it was issued in, when it carries one. */
  sid: string | undefined;
}

/**
 * An ID token this provider issued: our signature, with one of our published keys and algorithms, our typ and iss.
 * An expired ID token still passes (its lifetime says nothing of the session's), so exp is not checked.
 * Throws `invalid` for anything else, told why (for the log only: the client learns no more than that it is refused).
 */
export async function verifyOwnIdToken(
  ctx: ProviderContext,
  token: string,
  invalid: (why: OAuthErrorOptions) => Error,
): Promise<VerifiedIdToken> {
  const { keys, algorithms } = ctx.keys.verificationKeys;
  let payload: Uint8Array;
  let typ: unknown;
  try {
    ({
      payload,
      protectedHeader: { typ },
    } = await compactVerify(token, keys, { algorithms }));
  } catch (err) {
    throw invalid({ detail: 'not a JWS signed with a published key', cause: err });
  }
  // RFC 8725 3.11: the explicit type tells our kinds of JWT apart, all signed with the same keys. A logout token
  // (typ logout+jwt, Back-Channel Logout 1.0 2.4) or any other JWT of ours is not an ID token.
  if (typ !== ID_TOKEN_TYP) throw invalid({ detail: `typ is not ${ID_TOKEN_TYP}` });
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch (err) {
    throw invalid({ detail: 'the payload is not JSON', cause: err });
  }
  if (typeof claims !== 'object' || claims === null) throw invalid({ detail: 'the payload is not a JSON object' });
  const { iss, aud, sub, sid } = claims as Record<string, unknown>;
  if (iss !== ctx.config.issuer) throw invalid({ detail: 'iss is not this issuer' });
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (audiences.length === 0 || !audiences.every((a): a is string => typeof a === 'string')) {
    throw invalid({ detail: 'aud is not a string or a list of strings' });
  }
  if (typeof sub !== 'string' || sub === '') throw invalid({ detail: 'sub is missing' });
  if (sid !== undefined && typeof sid !== 'string') throw invalid({ detail: 'sid is not a string' });
  return { subject: sub, audiences, sid };
}

/**
 * OIDC Core 3.1.2.1: "ID Token previously issued by the Authorization Server being passed as a hint about the
 * End-User's current or past authenticated session with the Client." So: one of our ID tokens (see
 * verifyOwnIdToken) with the client among its audiences.
 */
export async function verifyIdTokenHint(ctx: ProviderContext, token: string, clientId: string): Promise<IdTokenHint> {
  const verified = await verifyOwnIdToken(ctx, token, invalid);
  if (!verified.audiences.includes(clientId)) throw invalid({ detail: 'issued to another client' });
  return { subject: verified.subject };
}
