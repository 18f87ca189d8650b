// A sign-in through a SAML connection (issue 39), the same trip as an OIDC connection's (upstream-login.ts): a signed
// AuthnRequest over HTTP-Redirect (or HTTP-POST, when the IdP takes only that) whose ID is kept in the upstream_logins
// row of a fresh RelayState, bound to this browser and used once; at the ACS the response is verified
// (saml-response.ts), its assertion ID used once, and the signed assertion mapped to the upstream identity the
// connection pages already sign in, link or provision.
import { addSeconds } from '../../clock.js';
import type { ProviderContext } from '../../context.js';
import { sealSecret } from '../../keys/sealed-secrets.js';
import { randomToken, safeEqual, sha256 } from '../../secrets.js';
import { consumeUpstreamLogin, insertUpstreamLogin } from '../../../storage/upstream-logins.js';
import { useAssertionId } from '../../../storage/saml-assertions.js';
import type { Connection } from '../../connections/connection.js';
import { UpstreamRefusal } from '../../connections/upstream-errors.js';
import type { UpstreamIdentity } from '../../connections/upstream-identity.js';
import type { UpstreamDeparture, UpstreamPurpose } from '../../connections/upstream-login.js';
import { attributeNames } from './saml-settings.js';
import { serviceProvider } from './service-provider.js';
import type { SamlCredentials } from '../credentials.js';
import { SamlError } from '../saml-error.js';
import { verifySamlResponse, type VerifiedAssertion } from './saml-response.js';

const MAX_UPSTREAM_SECONDS = 600;
const MAX_GROUPS = 100;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const TRANSIENT_FORMAT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';

/**
 * A signed AuthnRequest with a RelayState bound to this browser, in the IdP's SSO binding: the SSO URL with the
 * request and its signature in the query (SAML Bindings §3.4.4.1), or the fields of a form posted there, the
 * request XML-signed (Bindings §3.5.4: base64, not deflated).
 */
export async function startSamlLogin(
  ctx: ProviderContext,
  credentials: SamlCredentials,
  input: { connection: Connection; purpose: UpstreamPurpose; browserSecret: string },
): Promise<UpstreamDeparture> {
  const { connection } = input;
  // SAML Core 1.3.4: an xs:ID, so it must not start with a digit.
  const requestId = `_${randomToken()}`;
  const relayState = randomToken();
  const stateHash = sha256(relayState);
  await insertUpstreamLogin(ctx.db, {
    stateHash,
    browserHash: sha256(input.browserSecret),
    connectionId: connection.id,
    interactionId: input.purpose.kind === 'sign-in' ? input.purpose.interactionId : null,
    linkUserId: input.purpose.kind === 'link' ? input.purpose.userId : null,
    // The AuthnRequest's ID, which the response's InResponseTo must name.
    nonce: requestId,
    verifierSealed: { ...(await sealSecret(ctx, 'upstream-verifier', stateHash, Buffer.from(requestId))) },
    expiresAt: addSeconds(ctx.clock(), Math.min(ctx.config.interactionTtlSeconds, MAX_UPSTREAM_SECONDS)),
  });
  const post = connection.saml!.ssoBinding === 'post';
  const sp = await serviceProvider(
    ctx.config.issuer,
    connection,
    { signing: await credentials.signing() },
    { requestId: null, newRequestId: requestId },
    post,
  );
  if (post) {
    const message = await sp.getAuthorizeMessageAsync(relayState, undefined, {});
    const post: Record<string, string> = {};
    for (const [name, value] of Object.entries(message)) if (typeof value === 'string') post[name] = value;
    return { kind: 'post', url: connection.saml!.ssoUrl, post };
  }
  return { kind: 'redirect', url: await sp.getAuthorizeUrlAsync(relayState, undefined, {}) };
}

export interface FinishedSamlLogin {
  identity: UpstreamIdentity;
  /** undefined: an unsolicited response the connection takes, which resumes no interaction. */
  purpose: UpstreamPurpose | undefined;
}

/** The stored row's purpose; the table's CHECK keeps exactly one column set. */
function purposeOf(login: { interactionId: string | null; linkUserId: string | null }): UpstreamPurpose {
  if (login.interactionId !== null && login.linkUserId === null) return { kind: 'sign-in', interactionId: login.interactionId };
  if (login.linkUserId !== null && login.interactionId === null) return { kind: 'link', userId: login.linkUserId };
  throw new UpstreamRefusal('bad-state', 'the stored sign-in has no single purpose');
}

/**
 * The ACS: the RelayState's row used up in this browser (or, with none, an unsolicited response where the connection
 * takes them), the response verified, its assertion ID used once. Throws SamlError or UpstreamRefusal; on either
 * nothing but the used RelayState row is written.
 */
export async function finishSamlLogin(
  ctx: ProviderContext,
  credentials: SamlCredentials,
  input: { connection: Connection; samlResponse: string; relayState: string | undefined; browserSecret: string | undefined },
): Promise<FinishedSamlLogin> {
  const { connection } = input;
  let requestId: string | null = null;
  let purpose: UpstreamPurpose | undefined;
  const login = input.relayState ? await consumeUpstreamLogin(ctx.db, sha256(input.relayState), connection.id, ctx.clock()) : undefined;
  if (login) {
    // Profiles 4.1.4.5 with RFC 6749 10.12's reasoning: the response is honoured in the browser that asked for it.
    if (!input.browserSecret || !safeEqual(login.browserHash, sha256(input.browserSecret)))
      throw new UpstreamRefusal('bad-state', 'the request was sent from another browser');
    requestId = login.nonce;
    purpose = purposeOf(login);
  } else if (!connection.saml!.allowUnsolicited) {
    throw new SamlError('unsolicited', 'no request of this browser is waiting and the connection takes no unsolicited response');
  }
  const verified = await verifySamlResponse(
    { issuer: ctx.config.issuer, connection, credentials, now: ctx.clock() },
    input.samlResponse,
    requestId,
  );
  // Profiles 4.1.4.5: each assertion ID once, kept while the assertion could be accepted.
  if (!(await useAssertionId(ctx.db, { connectionId: connection.id, assertionId: verified.assertionId, expiresAt: verified.notOnOrAfter })))
    throw new SamlError('replayed', 'the assertion ID was used before');
  return { identity: identityFromAssertion(connection, verified), purpose };
}

/** The attribute values of the first name present. */
function pick(attributes: Record<string, string[]>, names: readonly string[]): string[] {
  for (const name of names) if (attributes[name]?.length) return attributes[name]!;
  return [];
}

function text(value: string | undefined, max: number): string | null {
  return value !== undefined && value.length > 0 && value.length <= max ? value : null;
}

/**
 * The identity the connection pages take: the NameID as the subject (a link is per connection, so the subject is
 * scoped to it), the mapped attributes. The IdP is the organisation's own directory, as the admin who added it says:
 * its address counts as verified, which still links to a local account only with that account's password.
 */
export function identityFromAssertion(connection: Connection, a: VerifiedAssertion): UpstreamIdentity {
  // A transient NameID names nobody across sign-ins (SAML Core 8.3.8): it cannot be the subject of a link.
  if (a.nameIdFormat === TRANSIENT_FORMAT) throw new UpstreamRefusal('bad-response', 'the IdP sent a transient NameID');
  const names = attributeNames(connection.saml!);
  const email = text(pick(a.attributes, names.email)[0] ?? (a.nameIdFormat === EMAIL_FORMAT ? a.nameId : undefined), 320);
  const given = text(pick(a.attributes, names.given_name)[0], 255);
  const family = text(pick(a.attributes, names.family_name)[0], 255);
  const display = text(pick(a.attributes, names.name)[0], 255);
  return {
    subject: a.nameId,
    email: email !== null && EMAIL.test(email) ? email : null,
    emailVerified: email !== null && EMAIL.test(email),
    name: display ?? ([given, family].filter(Boolean).join(' ') || null),
    username: text(pick(a.attributes, names.username)[0], 255),
    groups: pick(a.attributes, names.groups)
      .filter((g) => g.length > 0 && g.length <= 255)
      .slice(0, MAX_GROUPS),
    amr: [],
    acr: null,
  };
}
