// The one way a page or endpoint sends the browser on: 303 See Other (RFC 9110 15.4.4), so the next request is a GET
// whatever the method of this one, and never stored by a cache (the location may carry a code or a state).
import type { FastifyReply } from 'fastify';

export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}
