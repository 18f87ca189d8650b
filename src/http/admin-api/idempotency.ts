// Idempotency-Key on creates (draft-ietf-httpapi-idempotency-key-header): the key is claimed for the caller before
// the create runs; the same key with the same request replays the first answer, with a different request is a 422,
// and while the first is still running a 409. Keys are the caller's own (client or person) and last a day.
//
// Secrets are shown once: a replayed answer to a create that returned a secret (a client's) comes without it, with
// `client_secret_replayed_without_secret: true`; whoever lost the first answer rotates the secret.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalKey, type AdminPrincipal } from '../../domain/admin/principal.js';
import type { AdminContext } from '../../domain/admin/admin.js';
import { createOnce, type CreateAnswer } from '../../domain/admin/idempotency.js';
import { sha256 } from '../../domain/secrets.js';
import { ApiProblem } from './problem.js';

/** The Idempotency-Key header of the route schemas that take it: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_HEADERS = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: '^[\\x21-\\x7E]{1,255}$',
      description: 'makes a retried create safe: the same key and body replay the first answer (for a day)',
    },
  },
} as const;

/** Runs the create once per key; answers a replay from what was stored. */
export async function idempotentCreate(
  ctx: AdminContext,
  principal: AdminPrincipal,
  request: FastifyRequest,
  reply: FastifyReply,
  create: () => Promise<CreateAnswer>,
): Promise<FastifyReply> {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') {
    const answer = await create();
    return reply.code(answer.status).send(answer.body);
  }
  const owner = principalKey(principal);
  const requestHash = sha256(
    `${request.method} ${request.routeOptions.url}\n${JSON.stringify(request.params)}\n${JSON.stringify(request.body)}`,
  );
  const outcome = await createOnce(ctx, owner, key, requestHash, create);
  switch (outcome.kind) {
    case 'ran':
      return reply.code(outcome.answer.status).send(outcome.answer.body);
    case 'replayed':
      return reply.code(outcome.status).header('idempotent-replayed', 'true').send(outcome.body);
    case 'reused':
      throw new ApiProblem(422, 'idempotency_key_reused', 'this Idempotency-Key was used with another request: use a new key');
    case 'in-use':
      if (outcome.unreadable !== undefined)
        request.log.warn({ reason: outcome.unreadable }, 'stored Idempotency-Key answer unreadable by this version; treated as absent');
      throw new ApiProblem(
        409,
        'idempotency_key_in_use',
        outcome.claimed
          ? 'the first request with this Idempotency-Key is still running: retry shortly'
          : 'this Idempotency-Key is being used: retry shortly',
        { 'retry-after': '1' },
      );
  }
}
