// The client registration endpoint (RFC 7591 3) and the client configuration endpoint (RFC 7592 2): JSON in and
// out, bearer tokens in the Authorization header (RFC 6750 2.1). Registered only when registration is enabled.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { claimOpenRegistration } from '../../domain/clients/registration-throttle.js';
import {
  authorizeRegistration,
  deleteRegistration,
  readRegistration,
  registerClient,
  updateRegistration,
} from '../../domain/clients/registration.js';
import { InvalidRequest, InvalidToken, OAuthError } from '../../errors/oauth-error.js';

/** RFC 6750 2.1: `Bearer b64token`; undefined when there is no Authorization header. */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
  if (!match?.[1]) throw new InvalidToken('the Authorization header is not a Bearer token');
  return match[1];
}

function registrationAccessToken(request: FastifyRequest): string {
  const token = bearerToken(request);
  // RFC 7592 2: "The client MUST use its registration access token in all calls to this endpoint".
  if (token === undefined) throw new InvalidToken('a registration access token is required');
  return token;
}

/**
 * RFC 6749 5.1: "The authorization server MUST include the HTTP "Cache-Control" response header field with a value
 * of "no-store" in any response containing tokens, credentials, or other sensitive information".
 */
function sendJson(reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache').send(body);
}

const clientParams = {
  type: 'object',
  properties: { clientId: { type: 'string', minLength: 1, maxLength: 256 } },
  required: ['clientId'],
} as const;

export default async function registrationRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  // RFC 7591 3.1: the client "sends an HTTP POST to the client registration endpoint with a content type of
  // "application/json""; RFC 7592 2.2 the same for PUT. Only here: every other endpoint takes forms only.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new InvalidRequest('the request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new InvalidRequest('the request body must be application/json'), undefined);
  });

  app.post(
    '/register',
    {
      // Before the body is read: a request without the initial access token learns nothing more than 401.
      onRequest: async (request) => {
        if (ctx.config.registration.open) await claimOpenRegistration(ctx, request.ip);
        else authorizeRegistration(ctx.config.registration, bearerToken(request));
      },
    },
    async (request, reply) => sendJson(reply, 201, await registerClient(ctx, request.body)),
  );

  app.get<{ Params: { clientId: string } }>('/register/:clientId', { schema: { params: clientParams } }, async (request, reply) => {
    return sendJson(reply, 200, await readRegistration(ctx, request.params.clientId, registrationAccessToken(request)));
  });

  app.put<{ Params: { clientId: string } }>('/register/:clientId', { schema: { params: clientParams } }, async (request, reply) => {
    return sendJson(reply, 200, await updateRegistration(ctx, request.params.clientId, registrationAccessToken(request), request.body));
  });

  // RFC 7592 2.3: "If a client has been successfully deprovisioned, the authorization server MUST respond with an
  // HTTP 204 No Content message."
  app.delete<{ Params: { clientId: string } }>('/register/:clientId', { schema: { params: clientParams } }, async (request, reply) => {
    await deleteRegistration(ctx, request.params.clientId, registrationAccessToken(request));
    return reply.code(204).header('cache-control', 'no-store').send();
  });

  // RFC 7592 2: "If an authorization server does not support a particular method on the client configuration
  // endpoint, it MUST respond with the appropriate error code."
  app.route({
    method: ['POST', 'PATCH'],
    url: '/register/:clientId',
    handler: async () => {
      throw new OAuthError('invalid_request', 'the client configuration endpoint takes GET, PUT and DELETE', 405, {
        allow: 'GET, PUT, DELETE',
      });
    },
  });
}
