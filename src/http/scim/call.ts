// Who calls the SCIM endpoints, before anything else of the request is looked at: a client's client_credentials
// token with the scim scope (src/domain/scim/access.ts); and the context its changes are made in, naming it as the
// actor of every audit record.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { SCIM_SCOPE, scimClient } from '../../domain/scim/access.js';
import type { Json } from '../../domain/scim/representation.js';
import type { ScimContext } from '../../domain/scim/users.js';
import { bearerToken } from '../bearer-token.js';
import { SCIM_CONTENT_TYPE } from './scim-error-body.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Under /scim/v2: the SCIM client, once authenticated; else null. */
    scimClientId: string | null;
  }
}

export const SCIM_PREFIX = '/scim/v2';

export async function authenticateScim(ctx: ProviderContext, request: FastifyRequest): Promise<void> {
  request.scimClientId = await scimClient(ctx, bearerToken(request, SCIM_SCOPE));
}

export function scimContext(ctx: ProviderContext, request: FastifyRequest): ScimContext {
  return {
    config: ctx.config,
    db: ctx.db,
    clock: ctx.clock,
    log: request.log,
    passwords: ctx.passwords,
    passwordPolicy: ctx.passwordPolicy,
    actor: { kind: 'client', clientId: request.scimClientId! },
    origin: request.ip,
    via: 'scim',
    scimBase: `${ctx.config.baseUrl}${SCIM_PREFIX}`,
  };
}

/** A SCIM answer (application/scim+json, RFC 7644 8.1), with the resource's version as its ETag (RFC 7644 3.14). */
export function sendScim(reply: FastifyReply, body: Json, status = 200): FastifyReply {
  const version = (body.meta as Json | undefined)?.version;
  if (typeof version === 'string' && body.id !== undefined) reply.header('etag', version);
  return reply.code(status).header('cache-control', 'no-store').type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** An If-Match header, when one was sent. */
export const ifMatch = (request: FastifyRequest): string | undefined => {
  const header = request.headers['if-match'];
  return typeof header === 'string' && header.trim() !== '' ? header : undefined;
};
