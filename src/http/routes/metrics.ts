// GET /metrics: this process's Prometheus metrics (text exposition format), outside the issuer's path.
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export interface MetricsRouteOptions {
  /** The instance's registry, or in the cluster primary the sum of its workers' (see src/metrics-server.ts). */
  source: { readonly contentType: Registry['contentType'] | string; metrics(): Promise<string> };
}

export default async function metricsRoutes(app: FastifyInstance, opts: MetricsRouteOptions) {
  const { source } = opts;
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', source.contentType).header('cache-control', 'no-store');
    return source.metrics();
  });
}
