// Every response observed once in sso_http_request_duration_seconds, labelled by method, route pattern (never the
// raw URL, whose paths and query can carry identifiers) and status. Each route gets its own onResponse hook that
// knows its pattern, and keeps its series by status: a request pays two map lookups and a bucket search, with no
// allocation (request.routeOptions would build an object per request). Requests no route matched share one pattern.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { HistogramSeries, SeriesHistogram } from '../../series-histogram.js';

/** The route label of a request no route matched (the 404 handler). */
export const UNMATCHED_ROUTE = 'unmatched';

type StatusSeries = Map<number, HistogramSeries>;

/** One route's series by method and status, created on first use. */
function routeSeries(histogram: SeriesHistogram, route: string): (method: string, status: number) => HistogramSeries {
  const byMethod = new Map<string, StatusSeries>();
  return (method, status) => {
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (!series) {
      series = histogram.series({ method, route, status_code: String(status) });
      byStatus.set(status, series);
    }
    return series;
  };
}

type OnResponse = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

function observer(histogram: SeriesHistogram, route: string): OnResponse {
  const seriesOf = routeSeries(histogram, route);
  return (request, reply, done) => {
    seriesOf(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
    done();
  };
}

export default fp(async function requestMetrics(app: FastifyInstance, opts: { histogram: SeriesHistogram }) {
  const { histogram } = opts;
  app.addHook('onRoute', (route: RouteOptions) => {
    const own = observer(histogram, route.url ?? UNMATCHED_ROUTE);
    const existing = route.onResponse;
    route.onResponse = existing === undefined ? [own] : [...(Array.isArray(existing) ? existing : [existing]), own];
  });

  const unmatched = observer(histogram, UNMATCHED_ROUTE);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request, reply, done);
    else done();
  });
});
