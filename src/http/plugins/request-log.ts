// One log line per request: method, path (never the query string, which can carry codes or hints),
// status and duration. Headers, bodies and cookies are never logged.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(async function requestLog(app: FastifyInstance) {
  app.addHook('onResponse', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    request.log.info(
      {
        method: request.method,
        path,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
  });
});
