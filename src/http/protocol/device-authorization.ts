// The device authorization endpoint (RFC 8628 3.1-3.2): form-encoded, the client authenticated as at the token
// endpoint, answered with a device code, a user code and where the user types it.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { requestDeviceAuthorization } from '../../domain/device-flow/device-authorization.js';
import { claimDeviceAuthorization } from '../../domain/device-flow/device-authorization-throttle.js';
import type { RawParams } from '../../domain/params.js';
import { CLIENT_AUTH_FIELDS, clientAuthentication } from './client-auth.js';

const str = { type: 'string' } as const;

const bodySchema = {
  type: 'object',
  properties: { ...CLIENT_AUTH_FIELDS, scope: str },
} as const;

const responseSchema = {
  200: {
    type: 'object',
    properties: {
      device_code: str,
      user_code: str,
      verification_uri: str,
      verification_uri_complete: str,
      expires_in: { type: 'integer' },
      interval: { type: 'integer' },
    },
  },
} as const;

export default async function deviceAuthorizationRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  // RFC 8628 3.1: "The client authentication requirements of Section 3.2.1 of [RFC6749] apply to requests on this
  // endpoint, which means that confidential clients (those that have established client credentials) authenticate
  // in the same manner as when making requests to the token endpoint, and public clients provide the "client_id"
  // parameter to identify themselves."
  app.post<{ Body: RawParams }>(
    '/device_authorization',
    { schema: { body: bodySchema, response: responseSchema }, preHandler: clientAuthentication(ctx) },
    async (request, reply) => {
      await claimDeviceAuthorization(ctx, request.client!.clientId, request.ip);
      const header = request.headers['user-agent'];
      const response = await requestDeviceAuthorization(
        ctx,
        request.client!,
        request.body,
        typeof header === 'string' ? header : undefined,
      );
      // The device code is a credential: like a token response (RFC 6749 5.1), never cached.
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
    },
  );
}
