// RP-Initiated Logout 1.0: who asks to end the session, whether the user must confirm, and where the browser goes.
import { createHash } from 'node:crypto';
import { InvalidRequest } from '../../errors/oauth-error.js';
import {
  endSessionBySid as endSessionRowBySid,
  endSession as endSessionRow,
  type ActiveSession,
  type EndedSession,
} from '../../storage/sessions.js';
import { loadClient, type Client } from '../clients/clients.js';
import type { SubjectIdentifiers } from '../clients/pairwise.js';
import type { ProviderContext } from '../context.js';
import { verifyOwnIdToken, type VerifiedIdToken } from './id-token-hint.js';
import { single, type RawParams } from '../params.js';
import { withResponseParams } from '../authorization/redirect-uri.js';
import { safeEqual } from '../secrets.js';
import { sessionKey } from '../accounts/sessions.js';
import type { Db } from '../../storage/database.js';
import { emitSessionsEnded } from '../webhooks/emit.js';

export interface LogoutRequest {
  /** The client that asked, when id_token_hint or client_id names one. */
  client: Client | null;
  /** Verified against the client's registered post_logout_redirect_uris, exactly. */
  postLogoutRedirectUri: string | null;
  state: string | null;
  /** The ID token the client sent as id_token_hint, verified. */
  hint: VerifiedIdToken | null;
}

/**
 * Validates the parameters of RP-Initiated Logout 1.0 section 2 (the same for GET and POST). Every refusal is an
 * InvalidRequest shown to the user: none is ever redirected, since the redirect target is what is in question.
 * `logout_hint` is accepted and not used (there is one account per browser); `ui_locales` is read by the route,
 * which shows its pages in the first language of it that they speak (src/http/protocol/end-session.ts).
 */
export async function validateLogoutRequest(ctx: ProviderContext, params: RawParams): Promise<LogoutRequest> {
  const idTokenHint = single(params, 'id_token_hint') ?? null;
  const clientId = single(params, 'client_id') ?? null;
  const postLogoutRedirectUri = single(params, 'post_logout_redirect_uri') ?? null;
  const state = single(params, 'state') ?? null;
  single(params, 'logout_hint');
  single(params, 'ui_locales');

  const hint =
    idTokenHint === null
      ? null
      : await verifyOwnIdToken(
          ctx,
          idTokenHint,
          (why) => new InvalidRequest('id_token_hint is not an ID token issued by this server', why),
        );
  // 2: "When both client_id and id_token_hint are present, the OP MUST verify that the Client Identifier
  // matches the one used when issuing the ID Token."
  if (hint && clientId !== null && !hint.audiences.includes(clientId)) {
    throw new InvalidRequest('client_id is not the audience of id_token_hint');
  }
  // We issue ID tokens to one audience; a token with several names no one client.
  const named = clientId ?? (hint?.audiences.length === 1 ? hint.audiences[0]! : null);
  const client = named === null ? null : ((await loadClient(ctx.db, ctx.log, named)) ?? null);
  if (clientId !== null && client === null) throw new InvalidRequest('client_id is not a registered client');

  if (postLogoutRedirectUri !== null) {
    // 2: the OP needs the client to know the registered URIs ("the post_logout_redirect_uri value ... MUST have
    // been previously registered"), and 3: "The OP MUST NOT perform post-logout redirection if the
    // post_logout_redirect_uri value supplied does not exactly match one of the previously registered
    // post_logout_redirect_uris values."
    if (client === null) throw new InvalidRequest('post_logout_redirect_uri needs id_token_hint or client_id to name the client');
    if (!client.postLogoutRedirectUris.includes(postLogoutRedirectUri)) {
      throw new InvalidRequest('post_logout_redirect_uri is not registered for this client');
    }
  }
  return { client, postLogoutRedirectUri, state, hint };
}

/**
 * 2: "the OP MUST ask the End-User this question if an id_token_hint was not provided or if the supplied ID Token
 * does not belong to the current OP session with the RP and/or currently logged in End-User." Only an ID token of
 * this user (and of this very session, when it names one) proves that the request comes from the user's own
 * client; anything else could be a cross-site request forcing the user out. With no session there is nothing to end.
 * The user's sub is the one the hint's client knows them by: pairwise for a pairwise client (OIDC Core 8.1).
 */
export function needsConfirmation(
  request: LogoutRequest,
  session: ActiveSession | undefined,
  subjects: Pick<SubjectIdentifiers, 'subjectFor'>,
): boolean {
  if (session === undefined) return false;
  const hint = request.hint;
  if (hint === null) return true;
  const sub = subjects.subjectFor(request.client?.pairwiseSector ?? null, session.userId);
  return hint.subject !== sub || (hint.sid !== undefined && hint.sid !== session.sid);
}

/** The CSRF token of the confirmation form: bound to the session cookie, so it is useless to anyone else. */
export function confirmationToken(sessionCookie: string): string {
  return createHash('sha256').update('logout-confirmation\0').update(sessionCookie).digest('base64url');
}

export function isConfirmationToken(sessionCookie: string, presented: string | undefined): boolean {
  return presented !== undefined && safeEqual(presented, confirmationToken(sessionCookie));
}

/**
 * Ends the session of this cookie (and queues its back-channel logouts and its session.ended webhook event, in one
 * transaction); nothing when it was not live.
 */
export function endSession(ctx: ProviderContext, sessionCookie: string): Promise<EndedSession | undefined> {
  return endNamedSession(ctx, (trx) => endSessionRow(trx, sessionKey(sessionCookie), ctx.clock()));
}

/** endSession for a session named by its sid (a SAML LogoutRequest's SessionIndex) rather than by its cookie. */
export function endSessionBySid(ctx: ProviderContext, sid: string): Promise<EndedSession | undefined> {
  return endNamedSession(ctx, (trx) => endSessionRowBySid(trx, sid, ctx.clock()));
}

function endNamedSession(ctx: ProviderContext, end: (trx: Db) => Promise<EndedSession | undefined>): Promise<EndedSession | undefined> {
  return ctx.db.transaction().execute(async (trx: Db) => {
    const ended = await end(trx);
    if (ended) await emitSessionsEnded(ctx, trx, ended.userId, 'logout', { sids: [ended.sid] });
    return ended;
  });
}

/**
 * Where the browser goes once the logout is done: the verified post_logout_redirect_uri, with `state` added to
 * its own query (3: "the OP ... MUST include the state value if the RP's request included it"), or null for the
 * provider's own "signed out" page.
 */
export function postLogoutLocation(request: LogoutRequest): string | null {
  // RFC 9700 4.11.2: without an ID token of ours the request can come from anyone, and anyone can register a client
  // with a post_logout_redirect_uri of their own: following it would make the provider's host an open redirector.
  // Only a valid id_token_hint proves the client itself sent the browser here (issue 16, finding 4).
  if (request.postLogoutRedirectUri === null || request.hint === null) return null;
  return withResponseParams(request.postLogoutRedirectUri, request.state === null ? {} : { state: request.state });
}
