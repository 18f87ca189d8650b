// Sends the browser to an upstream connection, for a pending interaction's sign-in or for a link the account page
// started: the browser's binding cookie (made once, kept for every upstream trip of this browser), the state row, and
// a 303 to the upstream's authorization endpoint (or, for a SAML IdP that takes AuthnRequests over HTTP-POST only, the
// auto-submitting form page the other POST bindings use).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from '../../domain/connections/connection.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { startUpstreamLogin, type UpstreamPurpose } from '../../domain/connections/upstream-login.js';
import type { Interaction } from '../../domain/authorization/authorize.js';
import type { ProviderContext } from '../../domain/context.js';
import { randomToken } from '../../domain/secrets.js';
import { samlUpstreamCookie, upstreamCookie } from '../cookies.js';
import { seeOther } from '../redirect.js';
import { connectionsForSignIn, hintedConnection } from '../../domain/connections/connections.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import { languageOf, refusalPage } from './upstream-pages.js';
import { FORM_POST_HEADERS, formPostPage } from '../views/form-post.js';
import type { ConnectionButtons } from '../views/connection-pages.js';
import type { PageText } from '../views/layout.js';

const BROWSER_SECRET = /^[A-Za-z0-9_-]{43}$/;

export async function sendUpstream(
  ctx: ProviderContext,
  directory: UpstreamDirectory,
  request: FastifyRequest,
  reply: FastifyReply,
  connection: Connection,
  trip: { purpose: UpstreamPurpose; loginHint?: string | null },
): Promise<FastifyReply> {
  const cookie = upstreamCookie(ctx.config);
  const held = request.cookies[cookie.name];
  const browserSecret = held !== undefined && BROWSER_SECRET.test(held) ? held : randomToken();
  const departure = await startUpstreamLogin(ctx, directory, {
    connection,
    purpose: trip.purpose,
    browserSecret,
    loginHint: trip.loginHint ?? null,
  });
  reply.setCookie(cookie.name, browserSecret, cookie.options);
  if (connection.kind === 'saml') {
    const twin = samlUpstreamCookie(ctx.config);
    reply.setCookie(twin.name, browserSecret, twin.options);
  }
  if (departure.kind === 'post')
    return reply
      .code(200)
      .headers(FORM_POST_HEADERS)
      .send(formPostPage(languageOf(ctx, request, undefined), { action: departure.url, params: departure.post }));
  return seeOther(reply, departure.url);
}

/** A sign-in's trip: back to the interaction, with its login_hint passed on. */
export function signInTrip(interaction: Interaction): { purpose: UpstreamPurpose; loginHint: string | null } {
  return { purpose: { kind: 'sign-in', interactionId: interaction.id }, loginHint: interaction.request.loginHint };
}

/** The sign-in page's connection buttons for this interaction (its binding echoed as their CSRF field). */
export async function connectionButtonsFor(
  ctx: ProviderContext,
  interaction: Pick<Interaction, 'id' | 'organizationId'>,
  binding: string,
): Promise<ConnectionButtons | undefined> {
  const interactionId = interaction.id;
  const connections = await connectionsForSignIn(ctx, interaction.organizationId);
  if (connections.length === 0) return undefined;
  return {
    interactionId,
    csrfToken: binding,
    items: connections.map((c) => ({ action: `${ctx.config.issuer}/connections/${c.id}/start`, name: c.displayName, icon: c.icon })),
  };
}

/**
 * An interaction whose request named a connection (idp_hint) or a login_hint in one of a connection's domains goes
 * straight upstream; undefined when none is named. An upstream that cannot be reached is said on a page.
 */
export async function hintedUpstream(
  ctx: ProviderContext,
  directory: UpstreamDirectory,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  t: PageText,
): Promise<FastifyReply | undefined> {
  const { idpHint, loginHint } = interaction.request;
  if (idpHint === undefined && !loginHint?.includes('@')) return undefined;
  const connection = hintedConnection(await connectionsForSignIn(ctx, interaction.organizationId), { idpHint, loginHint });
  if (!connection) return undefined;
  try {
    return await sendUpstream(ctx, directory, request, reply, connection, signInTrip(interaction));
  } catch (err) {
    if (err instanceof UpstreamRefusal) return refusalPage(request, reply, t, err, connection.id);
    throw err;
  }
}
