// The authorization endpoint's decisions: answer at once with a code, or hand over to the sign-in
// and consent pages through an interaction bound to this browser.
import { FAPI2_MAX_CODE_TTL_SECONDS } from '../clients/fapi2.js';
import type { Locale, MessageKey } from '../../i18n/catalog.js';
import { translate } from '../../i18n/translate.js';
import { ConsentRequired, InteractionRequired, LoginRequired } from '../../errors/oauth-error.js';
import { insertCodeForConsentedSession, type NewCode } from '../../storage/authorization-codes.js';
import { findConsentedScopes } from '../../storage/consents.js';
import { findInteraction, insertInteraction } from '../../storage/interactions.js';
import { STORED_INTERACTION, type StoredInteraction } from './stored-interaction.js';
import type { ActiveSession } from '../../storage/sessions.js';
import { requestedScopes, type AuthorizationRequest } from './authorization-request.js';
import { errorResponse, successResponse, type AuthorizationResponse } from './authorization-response.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import type { Client } from '../clients/clients.js';
import { verifyIdTokenHint, type IdTokenHint } from '../logout/id-token-hint.js';
import { safeEqual, sha256, storedKey } from '../secrets.js';
import { requestedSubject } from '../tokens/claims-request.js';
import { resolveSession, sessionKey } from '../accounts/sessions.js';
import { clientAdmits, notInAllowedGroup } from '../groups/allowed-groups.js';
import { meetsMfaRequirement } from '../accounts/second-factor-policy.js';
import { findOrganizationById } from '../../storage/organizations.js';
import type { OrganizationUsage } from '../../storage/schema.js';
import { organizationOf, type Organization } from '../organizations/organization-admin.js';

/**
 * `clientConfirmed`: the outcome was committed in a statement that checked the client's revision (the hot path),
 * so it holds even if the client was read from memory; any other outcome made with a remembered client must be
 * confirmed by the caller (domain/clients/client-cache.ts).
 */
export type AuthorizeOutcome =
  | { kind: 'respond'; response: AuthorizationResponse; clientConfirmed: boolean }
  | { kind: 'interaction'; interactionId: string; bindingSecret: string; clientConfirmed: false };

export function newCode(ctx: ProviderContext, request: AuthorizationRequest): { code: string; row: NewCode } {
  const now = ctx.clock();
  const code = ctx.random.timedToken(now);
  return {
    code,
    row: {
      codeHash: storedKey(code),
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      redirectUriInRequest: request.redirectUriInRequest,
      scope: requestedScopes(request).join(' '),
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      issuedAt: now,
      // FAPI 2.0 5.3.2.1 (6): "shall issue authorization codes with a maximum lifetime of 60 seconds".
      expiresAt: addSeconds(
        now,
        request.fapi2 ? Math.min(ctx.config.codeTtlSeconds, FAPI2_MAX_CODE_TTL_SECONDS) : ctx.config.codeTtlSeconds,
      ),
      resources: request.resources ?? [],
      claims: request.claims ?? null,
      dpopJkt: request.dpopJkt ?? null,
      organizationId: request.organizationId ?? null,
    },
  };
}

/** Can this session answer the request without a new sign-in (recent enough, and with a second factor when required)? */
export function sessionIsFreshEnough(session: ActiveSession, minAuthTime: Date | null, requireMfa: boolean): boolean {
  return (minAuthTime === null || session.authTime >= minAuthTime) && meetsMfaRequirement(session.amr, requireMfa);
}

/**
 * With a live session, fresh enough, whose user has already consented to every requested scope (and is
 * the user of id_token_hint, when there is one), the code is issued in one statement; otherwise the user
 * is sent to the interaction pages (or, with prompt=none, the client is told which interaction was needed).
 */
export async function authorize(
  ctx: ProviderContext,
  request: AuthorizationRequest,
  sessionCookie: string | undefined,
  client: Pick<Client, 'revision' | 'pairwiseSector' | 'groupRestricted' | 'requireMfa' | 'organizationUsage'>,
): Promise<AuthorizeOutcome> {
  const now = ctx.clock();
  const clientRevision = client.revision;
  const hinted =
    request.idTokenHint === null
      ? undefined
      : await hintedUser(ctx, client, await verifyIdTokenHint(ctx, request.idTokenHint, request.clientId), sessionCookie);
  // OIDC Core 5.5.1: "If the sub (subject) Claim is requested with a specific value for the ID Token, the
  // Authorization Server MUST only send a positive response if the End-User identified by that sub value has an active
  // session": that user's live session here answers, and nothing else does.
  const named = await userNamedByClaims(ctx, client, request, sessionCookie);
  if (named === 'refused' || (named !== undefined && hinted !== undefined && named.userId !== hinted.userId)) {
    const err = new LoginRequired('the signed-in user is not the user the claims parameter names');
    return { kind: 'respond', response: errorResponse(ctx, request, err), clientConfirmed: false };
  }
  const hint = hinted ?? named;
  // OIDC Core 3.1.2.1: prompt=login (and select_account, with one account per browser) wants a sign-in
  // after this request arrived; max_age one within that many seconds of it.
  const forceLogin = request.prompts.includes('login') || request.prompts.includes('select_account');
  let minAuthTime = forceLogin ? now : request.maxAge !== null ? new Date(now.getTime() - request.maxAge * 1000) : null;
  const forceConsent = request.prompts.includes('consent');
  // Issue 40: a sign-in for an organization (or one a `require` client must pick) goes through the pages, which check
  // the membership and the organization's policies; the one-statement path serves the requests without one.
  const forOrganization = request.organizationId !== undefined || client.organizationUsage === 'require';
  if (sessionCookie && !forceLogin && !forceConsent && !forOrganization) {
    const { code, row } = newCode(ctx, request);
    const issued = await insertCodeForConsentedSession(ctx.db, row, {
      idHash: sessionKey(sessionCookie),
      scopes: requestedScopes(request),
      now,
      minAuthTime,
      userId: hint?.userId,
      clientRevision,
      groupRestricted: client.groupRestricted,
      requireMfa: client.requireMfa,
    });
    if (issued) return { kind: 'respond', response: successResponse(ctx, request, code), clientConfirmed: true };
  }
  const promptNone = request.prompts.includes('none');
  const session = promptNone || hint ? await resolveSession(ctx, sessionCookie) : undefined;
  // OIDC Core 3.1.2.1 id_token_hint: "If the End-User identified by the ID Token is logged in or is logged in
  // by the request, then the Authorization Server returns a positive response; otherwise, it SHOULD return an
  // error, such as login_required."
  const otherUser = hint !== undefined && session !== undefined && session.userId !== hint.userId;
  if (promptNone) {
    // OIDC Core 3.1.2.6: prompt=none never shows a page; say which interaction would have been needed, or, for a
    // signed-in user a client limited to groups does not admit, access_denied (RFC 6749 4.1.2.1) at once.
    // A session without the second factor the client requires: login_required (OIDC Core 3.1.2.6), as for an old one.
    const usable = session !== undefined && !otherUser && sessionIsFreshEnough(session, minAuthTime, client.requireMfa);
    const limit = { clientId: request.clientId, groupRestricted: client.groupRestricted };
    if (usable && !(await clientAdmits(ctx, limit, session.userId)))
      return { kind: 'respond', response: errorResponse(ctx, request, notInAllowedGroup()), clientConfirmed: false };
    // Issue 40: an organization's membership and policies are checked on the pages only (OIDC Core 3.1.2.6
    // interaction_required: the request "cannot be completed without displaying a user interface").
    const err =
      usable && forOrganization
        ? new InteractionRequired('a sign-in for an organization is completed on its pages')
        : usable
          ? new ConsentRequired('the user has not consented to this request')
          : new LoginRequired(
              otherUser ? 'the signed-in user is not the user of id_token_hint' : 'the user is not signed in, or not recently enough',
            );
    return { kind: 'respond', response: errorResponse(ctx, request, err), clientConfirmed: false };
  }
  // Someone else is signed in here: the hinted user is to be "logged in by the request", so sign in afresh.
  if (otherUser) minAuthTime = now;
  // The hint has done its work; the interaction keeps no copy of the token.
  const pending = { ...request, idTokenHint: null };
  const started = await startInteraction(ctx, pending, { minAuthTime: minAuthTime?.getTime() ?? null, forceConsent });
  return { kind: 'interaction', ...started, clientConfirmed: false };
}

/**
 * The local user id an id_token_hint names. A public client's sub is that id; a pairwise sub (OIDC Core 8.1) is
 * not reversible, so it names the signed-in user when it is theirs at this client, and otherwise no user at all
 * (a value no user id equals: the request then wants the hinted user to sign in, as for another user).
 */
async function hintedUser(
  ctx: ProviderContext,
  client: Pick<Client, 'pairwiseSector'>,
  hint: IdTokenHint,
  sessionCookie: string | undefined,
): Promise<{ userId: string }> {
  if (client.pairwiseSector === null) return { userId: hint.subject };
  const session = await resolveSession(ctx, sessionCookie);
  const matches = session !== undefined && ctx.subjects.subjectFor(client.pairwiseSector, session.userId) === hint.subject;
  return { userId: matches ? session.userId : `pairwise:${hint.subject}` };
}

/** The user of a sub value in the claims parameter, when that user is the one signed in; 'refused' when not. */
async function userNamedByClaims(
  ctx: ProviderContext,
  client: Pick<Client, 'pairwiseSector'>,
  request: AuthorizationRequest,
  sessionCookie: string | undefined,
): Promise<{ userId: string } | 'refused' | undefined> {
  const subject = requestedSubject(request.claims ?? null);
  if (subject === undefined) return undefined;
  const named = await hintedUser(ctx, client, { subject }, sessionCookie);
  const session = await resolveSession(ctx, sessionCookie);
  return session !== undefined && session.userId === named.userId ? named : 'refused';
}

async function startInteraction(
  ctx: ProviderContext,
  request: AuthorizationRequest,
  flags: { minAuthTime: number | null; forceConsent: boolean },
): Promise<{ interactionId: string; bindingSecret: string }> {
  const interactionId = ctx.random.token(16);
  const bindingSecret = ctx.random.token();
  const now = ctx.clock();
  await insertInteraction(ctx.db, STORED_INTERACTION, {
    id: interactionId,
    bindingHash: sha256(bindingSecret),
    clientId: request.clientId,
    stored: { request, ...flags },
    createdAt: now,
    expiresAt: addSeconds(now, ctx.config.interactionTtlSeconds),
    organizationId: request.organizationId ?? null,
  });
  return { interactionId, bindingSecret };
}

/** Why an interaction page cannot go on: shown to the user, never redirected. */
export class InteractionError extends Error {
  /** `key`: what the page says, in the reader's language (the English sentence is the error's message, for logs). */
  constructor(readonly key: MessageKey) {
    super(translate('en', key));
    this.name = 'InteractionError';
  }
}

export interface Interaction extends StoredInteraction {
  id: string;
  createdAt: Date;
  /** Its client admits only members of its groups (src/domain/groups/allowed-groups.ts), as the client is now. */
  groupRestricted: boolean;
  /**
   * Its client requires a second factor (src/domain/accounts/second-factor-policy.ts), as the client is now, or its
   * organization's policy does (requireSecondFactor).
   */
  requireMfa: boolean;
  /** Issue 40: the organization the sign-in is for (named by the request, or picked after the sign-in); null: none. */
  organizationId: string | null;
  /** That organization as it is now; undefined when there is none (or it was deleted meanwhile). */
  organization: Organization | undefined;
  /** Its client's organization_usage, as the client is now. */
  organizationUsage: OrganizationUsage;
}

/**
 * Loads a pending interaction for the browser that started it: the binding secret (from its
 * cookie, echoed in every form as the CSRF token) must hash to what the interaction stored.
 */
export async function loadInteraction(ctx: ProviderContext, id: string, bindingSecret: string | undefined): Promise<Interaction> {
  const row = await findInteraction(ctx.db, STORED_INTERACTION, id);
  if (!row || !bindingSecret || !safeEqual(row.binding_hash, sha256(bindingSecret))) {
    throw new InteractionError('interaction.foreign');
  }
  // Made only when thrown: an error captures its stack, and every page of every sign-in loads its interaction.
  if (row.completed_at !== null || row.expires_at <= ctx.clock()) throw new InteractionError('interaction.expired');
  if (!row.readable) {
    // Written by a version of this code that stored another shape: the person starts again, as after an expiry.
    ctx.log.warn({ interaction: row.id, reason: row.reason }, 'stored interaction unreadable; treated as expired');
    throw new InteractionError('interaction.expired');
  }
  const organization = await organizationNow(ctx, row.organization_id);
  const organizationId = row.organization_id;
  return Object.assign({}, row.stored, {
    // The column is the organization of record: it also holds one the person picked (organization-choice.ts).
    request: Object.assign({}, row.stored.request, { organizationId: organizationId ?? undefined }),
    id: row.id,
    createdAt: row.created_at,
    groupRestricted: row.client_group_restricted,
    requireMfa: row.client_require_mfa || organizationRequiresSecondFactor(organization),
    organizationId,
    organization,
    organizationUsage: row.client_organization_usage,
  });
}

/** The organization of an interaction as it is now: read only for a sign-in that has one. */
async function organizationNow(ctx: ProviderContext, organizationId: string | null): Promise<Organization | undefined> {
  if (organizationId === null) return undefined;
  const row = await findOrganizationById(ctx.db, organizationId);
  return row ? organizationOf(row) : undefined;
}

/** The organization's policy asks for a second factor after the password, whatever the risk verdict. */
function organizationRequiresSecondFactor(organization: Organization | undefined): boolean {
  return organization !== undefined && organization.problem === null && organization.policies.requireSecondFactor;
}

/**
 * The language an interaction's pages speak (its request's ui_locales), for the pages that carry its id without
 * being bound to it (forgot password, sign-up): a language reveals nothing, so no binding is asked for.
 */
export async function interactionLocale(ctx: ProviderContext, id: string | undefined): Promise<Locale | undefined> {
  if (!id || !/^[A-Za-z0-9_-]{16,64}$/.test(id)) return undefined;
  const row = await findInteraction(ctx.db, STORED_INTERACTION, id);
  return row?.readable ? row.stored.request.uiLocale : undefined;
}

/** The client and language of the interaction an upstream sign-in resumes (for events and pages). */
export async function interactionFacts(
  ctx: ProviderContext,
  interactionId: string,
): Promise<{ clientId: string | null; locale: Locale | undefined; requireMfa: boolean }> {
  const row = await findInteraction(ctx.db, STORED_INTERACTION, interactionId);
  const organization = await organizationNow(ctx, row?.organization_id ?? null);
  return {
    clientId: row?.client_id ?? null,
    locale: row?.readable ? row.stored.request.uiLocale : undefined,
    requireMfa: (row?.client_require_mfa ?? false) || organizationRequiresSecondFactor(organization),
  };
}

/** Has the user already granted every scope this request asks for? */
export async function hasConsent(ctx: ProviderContext, userId: string, request: AuthorizationRequest): Promise<boolean> {
  const granted = new Set(await findConsentedScopes(ctx.db, userId, request.clientId));
  return requestedScopes(request).every((s) => granted.has(s));
}
