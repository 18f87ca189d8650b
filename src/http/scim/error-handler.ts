// SCIM's error handling: any thrown value, and an unknown path under /scim/v2, answered as an RFC 7644 3.12 error
// body (scim-error-body.ts chooses the body; this sends it).
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { SCIM_CONTENT_TYPE, scimErrorOf, scimNotFound, type ScimErrorBody } from './scim-error-body.js';

function sendScimError(reply: FastifyReply, status: number, body: ScimErrorBody, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers(headers).header('cache-control', 'no-store').type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Sets SCIM's error and not-found handlers on `app`, the plugin that holds SCIM's prefix. */
export function answerWithScimErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const scim = scimErrorOf(err);
    if (scim.unexpected) request.log.error({ err }, 'request failed');
    else request.refusal = { error: scim.body.scimType ?? scim.body.status };
    return sendScimError(reply, scim.status, scim.body, scim.headers);
  });
  app.setNotFoundHandler((_request, reply) => sendScimError(reply, 404, scimNotFound()));
}
