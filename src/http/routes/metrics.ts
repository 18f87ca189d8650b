// GET /metrics: this process's Prometheus metrics (text exposition format), outside the issuer's path.
import type { FastifyInstance } from 'fastify';
import { registry } from '../../metrics.js';

export interface MetricsRouteOptions {
  /** The exposition text; by default this process's registry (the cluster primary passes its workers' sum). */
  render?: () => Promise<string>;
}

export default async function metricsRoutes(app: FastifyInstance, opts: MetricsRouteOptions = {}) {
  const render = opts.render ?? (() => registry.metrics());
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return render();
  });
}
