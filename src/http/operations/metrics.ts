// GET /metrics: this process's Prometheus metrics (text exposition format), outside the issuer's path. Sign-in counts,
// risk reasons and verdicts are not for the public: on the main port they are served behind METRICS_TOKEN, or to
// anyone only on a development (loopback) issuer; METRICS_PORT serves them on a listener of their own instead.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { safeEqual } from '../../domain/secrets.js';
import { OAuthError } from '../../errors/oauth-error.js';

export interface MetricsRouteOptions {
  /** The instance's registry, or in the cluster primary the sum of its workers' (see src/metrics-server.ts). */
  source: { readonly contentType: Registry['contentType'] | string; metrics(): Promise<string> };
  /** The bearer token a scrape must present (RFC 6750 2.1); undefined: none. */
  token?: string;
}

/** RFC 6750 3.1: a missing or wrong token gets 401 with a Bearer challenge (and no hint which it was). */
class MetricsTokenRequired extends OAuthError {
  constructor() {
    super('invalid_token', 'a bearer token is required', 401, { 'www-authenticate': 'Bearer realm="metrics"' });
  }
}

function presentsToken(request: FastifyRequest, token: string): boolean {
  const match = /^Bearer +(\S+)$/i.exec(request.headers.authorization?.trim() ?? '');
  return match?.[1] !== undefined && safeEqual(match[1], token);
}

export default async function metricsRoutes(app: FastifyInstance, opts: MetricsRouteOptions) {
  const { source, token } = opts;
  app.get('/metrics', async (request, reply) => {
    if (token !== undefined && !presentsToken(request, token)) throw new MetricsTokenRequired();
    reply.header('content-type', source.contentType).header('cache-control', 'no-store');
    return source.metrics();
  });
}
