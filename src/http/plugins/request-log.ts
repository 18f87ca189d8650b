// One log line per request: method, path (never the query string, which can carry codes or hints, nor a path that
// carries a secret: then the route's pattern),
// status and duration; for a refused request, why (an OAuthError's detail and causes, src/http/plugins/error-handler.ts).
// Headers, bodies and cookies are never logged.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The path itself carries a secret (an invitation's link): the line names the route's pattern instead. */
    secretPath?: boolean;
  }
}

export default fp(async function requestLog(app: FastifyInstance) {
  // The line holds only the fields below, none of which can carry a secret, so it skips the redaction the
  // app's logger applies to everything else: that pass cost some 7 microseconds per line, a fifth of a
  // discovery or JWKS request.
  const accessLog = app.log.child({}, { redact: { paths: [] } } as never);
  app.addHook('onResponse', async (request, reply) => {
    const path = request.routeOptions.config.secretPath ? request.routeOptions.url : request.url.split('?', 1)[0];
    const line = {
      reqId: request.id,
      method: request.method,
      path,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    // A refusal's detail and causes are written by the code, not the request: still, they take the redacting logger.
    if (request.refusal) app.log.info({ ...line, refusal: request.refusal }, 'request');
    else accessLog.info(line, 'request');
  });
});
