// GET /metrics: this process's Prometheus metrics (text exposition format), outside the issuer's path.
import type { FastifyInstance } from 'fastify';
import { registry } from '../../metrics.js';

export default async function metricsRoutes(app: FastifyInstance) {
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return registry.metrics();
  });
}
