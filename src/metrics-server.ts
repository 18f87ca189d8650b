// METRICS_PORT: /metrics on a listener of its own (so that it can stay on an internal interface), and nothing
// else there. With WORKERS above 1 the primary process serves it, summing what every worker reports.
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Config } from './config.js';
import errorHandler from './http/plugins/error-handler.js';
import metricsRoutes, { type MetricsRouteOptions } from './http/operations/metrics.js';

/** Listens on METRICS_HOST:METRICS_PORT and serves `source` (the instance's registry, or the workers' sum). */
export async function startMetricsServer(
  config: Config,
  logger: FastifyBaseLogger,
  source: MetricsRouteOptions['source'],
): Promise<FastifyInstance> {
  const { metricsPort, metricsHost } = config.operations;
  if (metricsPort === undefined) throw new Error('METRICS_PORT is not set');
  const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) });
  await app.register(errorHandler);
  await app.register(metricsRoutes, { source });
  await app.listen({ port: metricsPort, host: metricsHost });
  // METRICS_PORT=0: the port the kernel gave, as the line says it.
  const { port } = app.server.address() as AddressInfo;
  logger.info({ metrics: `http://${metricsHost}:${port}/metrics` }, `metrics on ${metricsHost}:${port}`);
  return app;
}

/** In the primary of WORKERS > 1: the metrics of every worker, summed (event-loop figures averaged, as prom-client does). */
export function clusterMetricsSource(): MetricsRouteOptions['source'] {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}

/** In a worker: answers the primary's requests for this process's metrics (prom-client's cluster messages). */
export function shareMetricsWithPrimary(registry: Registry): void {
  if (!cluster.isWorker) return;
  // Constructing one installs prom-client's worker-side listener; setRegistries says which registry it reports.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}
