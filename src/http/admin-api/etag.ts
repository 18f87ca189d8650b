// Optimistic concurrency for single resources (RFC 9110 8.8.3 ETag, 13.1.1 If-Match, RFC 6585 3): a resource's ETag
// is a digest of its representation; a change or deletion must send If-Match with the ETag it read, and is refused
// with 412 when the resource changed meanwhile, 428 when it sent none. The management API's side: the digest, the
// guard and what each resource's ETag covers are src/http/etag.ts's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { asOneChange, lockForChange, type AdminContext } from '../../domain/admin/admin.js';
import { etagOf, type IfMatchGuard } from '../etag.js';
import { ApiProblem } from './problem.js';

// The digest and the guard are src/http/etag.ts's, shared with the console; the API's modules take them from here.
export { etagOf, type IfMatchGuard };

/** Sends the representation with its ETag. */
export function sendWithEtag(reply: FastifyReply, representation: unknown, status = 200): FastifyReply {
  return reply.code(status).header('etag', etagOf(representation)).send(representation);
}

/** The If-Match header of the route schemas that take it. */
export const IF_MATCH_HEADERS = {
  type: 'object',
  properties: { 'if-match': { type: 'string', maxLength: 1024, description: 'the ETag of the resource as last read (RFC 9110 13.1.1)' } },
} as const;

/**
 * Refuses the change unless If-Match names the current representation's ETag. RFC 9110 13.1.1: "An origin server
 * MUST use the strong comparison function when comparing entity tags for If-Match", so a weak tag never matches;
 * "*" matches any current representation.
 */
export function checkIfMatch(request: FastifyRequest, current: unknown): void {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '')
    throw new ApiProblem(428, 'precondition_required', 'send If-Match with the ETag of the resource as you last read it');
  if (header.trim() === '*') return;
  const wanted = etagOf(current);
  const tags = header.split(',').map((t) => t.trim());
  if (!tags.includes(wanted)) throw new ApiProblem(412, 'precondition_failed', 'the resource changed since you read it: read it again');
}

/**
 * Runs `change` in one transaction, after If-Match has been compared with the resource as read with its row locked
 * in that transaction (SELECT … FOR UPDATE): a change committed by anyone between the client's read and this one is
 * a 412, and none can slip in between the comparison and the change. The resource is read once to know which row
 * to lock (a user may be named by username), then again once locked; `change` gets the second reading.
 */
export function changeIfMatch<R, T>(
  request: FastifyRequest,
  ctx: AdminContext,
  guard: IfMatchGuard<R>,
  change: (tctx: AdminContext, current: R) => Promise<T>,
): Promise<T> {
  return asOneChange(ctx, async (tctx) => {
    await lockForChange(tctx, guard.lock(await guard.read(tctx)));
    const current = await guard.read(tctx);
    checkIfMatch(request, guard.tagged(current));
    return change(tctx, current);
  });
}
