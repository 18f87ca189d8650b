// GET /healthz and /readyz, at the root beside /metrics rather than under the issuer: they describe this process,
// not the OpenID provider, and probes (Kubernetes, load balancers) look for them there.
// /healthz: the process answers (no database access), for a liveness probe that restarts a stuck process.
// /readyz: whether to send it traffic (domain/readiness.ts), for a readiness probe or a balancer's health check.
import type { FastifyInstance } from 'fastify';
import type { ReadinessProbe } from '../../domain/readiness.js';

const ALIVE = '{"status":"ok"}';

export default async function healthRoutes(app: FastifyInstance, opts: { readiness: ReadinessProbe }) {
  const { readiness } = opts;

  app.get('/healthz', async (_request, reply) => {
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(ALIVE);
  });

  app.get('/readyz', async (_request, reply) => {
    const result = await readiness.check();
    reply.header('cache-control', 'no-store');
    if (result.ready) return reply.send({ status: 'ready' });
    return reply.code(503).send({ status: 'not_ready', failed: result.failed });
  });
}
