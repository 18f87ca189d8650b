// X-Content-Type-Options: nosniff on every response (JSON, redirects, errors), not only on pages, so that no
// browser ever renders an API answer as something other than its declared type (Fetch: "X-Content-Type-Options").
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(
  async function securityHeaders(app: FastifyInstance) {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    });
  },
  { name: 'security-headers' },
);
