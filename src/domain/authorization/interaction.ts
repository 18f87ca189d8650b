// What the sign-in and consent pages do with the user's answers.
import { AccessDenied, LoginRequired } from '../../errors/oauth-error.js';
import { completeConsentedInteraction, insertCode, type NewCode } from '../../storage/authorization-codes.js';
import { grantScopes } from '../../storage/consents.js';
import { completeInteraction } from '../../storage/interactions.js';
import type { ActiveSession } from '../../storage/sessions.js';
import { errorResponse, successResponse, type AuthorizationResponse } from './authorization-response.js';
import { InteractionError, hasConsent, newCode, type Interaction } from './authorize.js';
import { requestedScopes } from './authorization-request.js';
import type { ProviderContext } from '../context.js';
import { loadClient } from '../clients/clients.js';
import { requestedSubject } from '../tokens/claims-request.js';
import { clientAdmits, notInAllowedGroup } from '../groups/allowed-groups.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { organizationStep, type OrganizationStep } from './organization-choice.js';

/**
 * `refused`: the client is limited to groups and the user is in none of them; the person is told on a page, whose
 * link takes `response` (access_denied) back to the client.
 */
export type NextStep =
  | { kind: 'consent' }
  | { kind: 'respond'; response: AuthorizationResponse }
  | { kind: 'refused'; response: AuthorizationResponse }
  | Exclude<OrganizationStep, { kind: 'pass' | 'refused' }>
  | { kind: 'organization-refused'; message: MessageKey };

/** After sign-in (or on arrival with a session): straight back to the client, or on to consent. */
export async function afterSignIn(ctx: ProviderContext, interaction: Interaction, session: ActiveSession): Promise<NextStep> {
  // Issue 40: an organization's sign-in admits its members only (or has the person pick one of theirs).
  const organization = await organizationStep(ctx, interaction, session);
  if (organization.kind === 'refused') return { kind: 'organization-refused', message: organization.message };
  if (organization.kind !== 'pass') return organization;
  const refused = await refusedByGroups(ctx, interaction, session);
  if (refused) return { kind: 'refused', response: refused };
  if (interaction.forceConsent) return { kind: 'consent' };
  // A claims parameter that names a subject is checked first (finish); every other request goes on in one statement.
  if (requestedSubject(interaction.request.claims ?? null) !== undefined) {
    if (!(await hasConsent(ctx, session.userId, interaction.request))) return { kind: 'consent' };
    return { kind: 'respond', response: await finish(ctx, interaction, session, false) };
  }
  const { request } = interaction;
  const { code, row } = newCode(ctx, request);
  const done = await completeConsentedInteraction(ctx.db, interaction.id, codeInSession(row, session), requestedScopes(request));
  if (!done.consented) return { kind: 'consent' };
  if (!done.completed) throw alreadyDone();
  return { kind: 'respond', response: successResponse(ctx, request, code) };
}

function codeInSession(row: NewCode, session: ActiveSession) {
  return Object.assign({}, row, {
    userId: session.userId,
    authTime: session.authTime,
    sid: session.sid,
    amr: session.amr,
    acr: session.acr,
  });
}

/** The consent page's answer: Allow records the grant and issues the code; Deny tells the client access_denied. */
export async function answerConsent(
  ctx: ProviderContext,
  interaction: Interaction,
  session: ActiveSession,
  allow: boolean,
): Promise<AuthorizationResponse> {
  if (allow) return finish(ctx, interaction, session, true);
  if (!(await completeInteraction(ctx.db, interaction.id, ctx.clock()))) throw alreadyDone();
  // The consent page named the host the answer goes to (RFC 9700 4.11.2): the person chose.
  return errorResponse(ctx, interaction.request, new AccessDenied('the user denied the request'), { personActed: true });
}

/**
 * For a client limited to groups (issue 20) whose groups the user is in none of: the interaction ends and the client
 * is to be told access_denied. Undefined when the client admits the user; no query for a client not so limited.
 */
async function refusedByGroups(
  ctx: ProviderContext,
  interaction: Interaction,
  session: ActiveSession,
): Promise<AuthorizationResponse | undefined> {
  const limit = { clientId: interaction.request.clientId, groupRestricted: interaction.groupRestricted };
  if (await clientAdmits(ctx, limit, session.userId)) return undefined;
  if (!(await completeInteraction(ctx.db, interaction.id, ctx.clock()))) throw alreadyDone();
  ctx.log.info({ event: 'authorization.group_refused', clientId: limit.clientId, userId: session.userId }, 'not in an allowed group');
  // The page that says why names the host it returns to, and the person follows the link: they acted.
  return errorResponse(ctx, interaction.request, notInAllowedGroup(), { personActed: true });
}

/** Completes the interaction, records consent and issues the code: all in one transaction or none of it. */
async function finish(
  ctx: ProviderContext,
  interaction: Interaction,
  session: ActiveSession,
  recordConsent: boolean,
): Promise<AuthorizationResponse> {
  const { request } = interaction;
  // OIDC Core 5.5.1: with a sub value in the claims parameter, "The Authorization Server MUST NOT reply with an ID
  // Token or Access Token for a different user": someone else signed in on the way is refused.
  const required = requestedSubject(request.claims ?? null);
  if (required !== undefined && !(await isSubjectAt(ctx, request.clientId, session.userId, required))) {
    if (!(await completeInteraction(ctx.db, interaction.id, ctx.clock()))) throw alreadyDone();
    const err = new LoginRequired('the signed-in user is not the user the claims parameter names');
    return errorResponse(ctx, request, err, { personActed: true });
  }
  // Checked again where the code is issued after consent: the consent page may be answered by whoever is signed in
  // by then (afterSignIn checked the user it was given).
  const refused = recordConsent ? await refusedByGroups(ctx, interaction, session) : undefined;
  if (refused) return refused;
  const { code, row } = newCode(ctx, request);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await completeInteraction(trx, interaction.id, row.issuedAt))) throw alreadyDone();
    if (recordConsent) await grantScopes(trx, session.userId, request.clientId, requestedScopes(request), row.issuedAt);
    await insertCode(trx, codeInSession(row, session));
  });
  return successResponse(ctx, request, code);
}

/** Whether `userId` is the user the client knows as `sub` (pairwise or not). */
async function isSubjectAt(ctx: ProviderContext, clientId: string, userId: string, sub: string): Promise<boolean> {
  const client = await loadClient(ctx.db, ctx.log, clientId);
  return client !== undefined && ctx.subjects.subjectFor(client.pairwiseSector, userId) === sub;
}

function alreadyDone(): InteractionError {
  return new InteractionError('interaction.completed');
}
