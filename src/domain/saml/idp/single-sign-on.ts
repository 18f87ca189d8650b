// Web Browser SSO (SAML Profiles 2.0 §4.1) once the request is known good: what answers it for the browser's session.
// A session that may serve it gets a signed Response for the SP's ACS; IsPassive without one gets NoPassive; a
// person outside the SP's groups gets RequestDenied; a request for a second factor from a person who has none gets
// NoAuthnContext; otherwise the person must sign in first (with their second factor when one was asked for).
import type { ActiveSession } from '../../../storage/sessions.js';
import { groupNamesOfUser } from '../../../storage/groups.js';
import { spAdmitsUser } from '../../../storage/saml-service-providers.js';
import { recordSamlSessionParticipant } from '../../../storage/saml-session-participants.js';
import { findUserById } from '../../../storage/users.js';
import { hasSecondFactor } from '../../accounts/second-factor-policy.js';
import type { ProviderContext } from '../../context.js';
import type { SamlCredentials } from '../credentials.js';
import { AUTHN_CONTEXT, STATUS } from '../namespaces.js';
import type { AuthnRequest } from './authn-request.js';
import { failureResponseXml, samlId, successResponseXml, type ResponseAttribute } from './saml-response.js';
import { blockCipherFor, type AttributeSource, type SamlServiceProvider } from './service-providers.js';

export type SsoAnswer =
  /** Post this to the ACS (a response, successful or not). */
  | { kind: 'post'; acsUrl: string; samlResponse: string; relayState: string | undefined; userId: string | null }
  /** The person must sign in (again) before the request can be answered. */
  | { kind: 'sign-in' };

/** The pairwise sector of an SP's persistent NameIDs: its entityID, apart from every OIDC sector (host names). */
const persistentSector = (entityId: string) => `saml:${entityId}`;

/** OIDC Core 2 amr values that mean a second factor was used (RFC 8176 §2). */
const SECOND_FACTOR_AMR = new Set(['mfa', 'otp', 'hwk', 'swk']);

/** What the sign-in achieved, as an authentication context class (SAML AuthnContext 2.0 §3.4). */
export function achievedContext(session: Pick<ActiveSession, 'amr'>): string {
  return session.amr.some((m) => SECOND_FACTOR_AMR.has(m)) ? AUTHN_CONTEXT.multiFactor : AUTHN_CONTEXT.passwordProtectedTransport;
}

/**
 * Core §3.3.2.2.1 with Comparison "exact" (the default): the achieved class must be one of those requested. A
 * password-only session asked for MultiFactor is not enough (and a second factor satisfies a request for Password).
 */
function satisfies(requested: readonly string[], achieved: string): boolean {
  if (requested.length === 0) return true;
  if (requested.includes(achieved)) return true;
  return achieved === AUTHN_CONTEXT.multiFactor && requested.some((r) => r !== AUTHN_CONTEXT.multiFactor);
}

/**
 * Does a request for these classes need more than a password (a RequestedAuthnContext of MultiFactor)? Then the
 * sign-in it waits for goes on to the person's second factor.
 */
export function asksSecondFactor(requested: readonly string[]): boolean {
  return !satisfies(requested, AUTHN_CONTEXT.passwordProtectedTransport);
}

function attributeValues(
  source: AttributeSource,
  user: { id: string; username: string; email: string | null; claims: Record<string, unknown> },
  groups: string[],
): string[] {
  switch (source) {
    case 'email':
      return user.email ? [user.email] : [];
    case 'username':
      return [user.username];
    case 'user_id':
      return [user.id];
    case 'groups':
      return groups;
    default: {
      const value = user.claims[source];
      return typeof value === 'string' && value !== '' ? [value] : [];
    }
  }
}

/** The NameID of a user at an SP (Core §8.3): the persistent one is pairwise, never the user id itself. */
function nameIdOf(
  ctx: ProviderContext,
  sp: SamlServiceProvider,
  user: { id: string; username: string; email: string | null },
): string | undefined {
  switch (sp.nameIdFormat) {
    case 'email':
      return user.email ?? undefined;
    case 'persistent':
      return ctx.subjects.subjectFor(persistentSector(sp.entityId), user.id);
    case 'transient':
      return samlId();
    default:
      return user.username;
  }
}

export interface SsoRequest {
  sp: SamlServiceProvider;
  acsUrl: string;
  /** The AuthnRequest's ID; absent when IdP-initiated. */
  inResponseTo?: string;
  relayState: string | undefined;
  /** Core §3.4.1 ForceAuthn: a session signed in before this cannot serve the request (null: any may). */
  minAuthTime: Date | null;
  isPassive: boolean;
  requestedAuthnContext: string[];
}

/** `now`: when the request arrived, the time a ForceAuthn sign-in must come after. */
export function ssoRequestOf(request: AuthnRequest, now: Date): SsoRequest {
  return {
    sp: request.sp,
    acsUrl: request.acsUrl,
    inResponseTo: request.id,
    relayState: request.relayState,
    minAuthTime: request.forceAuthn ? now : null,
    isPassive: request.isPassive,
    requestedAuthnContext: request.requestedAuthnContext,
  };
}

/** The answer to a checked request for the browser's session (undefined: none). */
export async function answerSso(
  ctx: ProviderContext,
  credentials: SamlCredentials,
  request: SsoRequest,
  session: ActiveSession | undefined,
): Promise<SsoAnswer> {
  const now = ctx.clock();
  const failure = async (status: string, subStatus: string, userId: string | null): Promise<SsoAnswer> => ({
    kind: 'post',
    acsUrl: request.acsUrl,
    relayState: request.relayState,
    userId,
    samlResponse: failureResponseXml({
      issuer: ctx.config.issuer,
      acsUrl: request.acsUrl,
      inResponseTo: request.inResponseTo,
      status,
      subStatus,
      now,
      key: await credentials.signing(),
    }),
  });
  // Core §3.4.1: IsPassive "the identity provider MUST NOT visibly take control of the user interface".
  const signInFirst = (): Promise<SsoAnswer> | SsoAnswer =>
    request.isPassive ? failure(STATUS.responder, STATUS.noPassive, null) : { kind: 'sign-in' };
  const fresh = session !== undefined && (request.minAuthTime === null || session.authTime.getTime() >= request.minAuthTime.getTime());
  if (!fresh) return signInFirst();
  const user = await findUserById(ctx.db, session.userId);
  if (!user || user.disabled_at !== null) return signInFirst();
  if (!satisfies(request.requestedAuthnContext, achievedContext(session))) {
    // Core §3.3.2.2.1: "If the responder cannot satisfy the request, it MUST return a <Response> message with a
    // second-level <StatusCode> of urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext." A person with a second
    // factor can still satisfy it, by signing in with it.
    if (await hasSecondFactor(ctx, user)) return signInFirst();
    return failure(STATUS.responder, STATUS.noAuthnContext, user.id);
  }
  if (request.sp.groupRestricted && !(await spAdmitsUser(ctx.db, request.sp.entityId, user.id))) {
    return failure(STATUS.responder, STATUS.requestDenied, user.id);
  }
  const nameId = nameIdOf(ctx, request.sp, user);
  if (nameId === undefined) return failure(STATUS.responder, 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy', user.id);
  const claims = (typeof user.claims === 'object' && user.claims !== null ? user.claims : {}) as Record<string, unknown>;
  const mapped = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : [];
  const groups = [...new Set([...(await groupNamesOfUser(ctx.db, user.id)), ...mapped])];
  const attributes: ResponseAttribute[] = request.sp.attributes.map((a) => ({
    name: a.name,
    values: attributeValues(a.from, user, groups),
  }));
  const samlResponse = await successResponseXml({
    issuer: ctx.config.issuer,
    audience: request.sp.entityId,
    acsUrl: request.acsUrl,
    inResponseTo: request.inResponseTo,
    nameId,
    nameIdFormat: request.sp.nameIdFormat,
    sessionIndex: session.sid,
    authnInstant: session.authTime,
    authnContextClassRef: achievedContext(session),
    attributes,
    now,
    key: await credentials.signing(),
    signAssertion: request.sp.signAssertion,
    signResponse: request.sp.signResponse,
    ...(request.sp.encryptAssertion && request.sp.role.encryptionCertificates[0] !== undefined
      ? { encryptFor: request.sp.role.encryptionCertificates[0], blockCipher: blockCipherFor(request.sp) }
      : {}),
  });
  // Profiles §4.4: single logout later names this NameID and SessionIndex to the SP.
  const participant = { entityId: request.sp.entityId, nameId, nameIdFormat: request.sp.nameIdFormat, sessionIndex: session.sid };
  await recordSamlSessionParticipant(ctx.db, session.sid, participant, now);
  return { kind: 'post', acsUrl: request.acsUrl, relayState: request.relayState, samlResponse, userId: user.id };
}
