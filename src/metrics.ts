// The Prometheus metrics of one provider instance: a registry and its metrics, made by createMetrics() and passed
// to the app and the domain through the ProviderContext (never a module-level global). prom-client is the standard
// Node client (histogram buckets, label handling and the text format are its job, not ours).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SeriesHistogram } from './series-histogram.js';
import type { PoolStats } from './storage/database.js';

/** Every outcome of a password sign-in attempt; fed where the matching security event is logged. */
export const SIGN_IN_OUTCOMES = ['signed_in', 'wrong_credentials', 'throttled', 'challenged', 'blocked'] as const;
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number];

export interface Metrics {
  readonly registry: Registry;
  readonly riskVerdicts: Counter<'action'>;
  readonly riskReasons: Counter<'reason' | 'action'>;
  readonly riskEvaluationSeconds: Histogram;
  /** Request duration by route pattern (never the raw URL), method and status; its _count is the request count. */
  readonly httpRequestDuration: SeriesHistogram;
  readonly signIns: Counter<'outcome'>;
  readonly tokensIssued: Counter<'grant_type'>;
  /** Reports this pool in the sso_db_pool_* gauges; returns a function that lets go. */
  watchDatabasePool(stats: () => PoolStats): () => void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sso_' });
  const registers = [registry];

  const signIns = new Counter({
    name: 'sso_sign_ins_total',
    help: 'Password sign-in attempts by outcome (a challenged attempt that then passes its second factor also counts as signed_in)',
    labelNames: ['outcome'] as const,
    registers,
  });
  // Every outcome is exposed from the start (at 0), so that a rate over it exists before the first such attempt.
  for (const outcome of SIGN_IN_OUTCOMES) signIns.inc({ outcome }, 0);

  let poolStats: (() => PoolStats) | undefined;
  const poolGauge = (name: string, help: string, read: (s: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        if (poolStats) this.set(read(poolStats()));
      },
    });
  poolGauge('sso_db_pool_max', 'Connections the pool may open (PGlite: 1)', (s) => s.max);
  poolGauge('sso_db_pool_in_use', 'Connections checked out by a query or transaction', (s) => s.inUse);
  poolGauge('sso_db_pool_idle', 'Open connections not in use', (s) => s.idle);
  poolGauge('sso_db_pool_waiting', 'Queries waiting for a connection', (s) => s.waiting);

  return {
    registry,
    riskVerdicts: new Counter({
      name: 'sso_risk_verdicts_total',
      help: 'Sign-in risk verdicts by action',
      labelNames: ['action'] as const,
      registers,
    }),
    riskReasons: new Counter({
      name: 'sso_risk_reasons_total',
      help: 'Reasons found by sign-in risk evaluations',
      labelNames: ['reason', 'action'] as const,
      registers,
    }),
    riskEvaluationSeconds: new Histogram({
      name: 'sso_risk_evaluation_seconds',
      help: 'Time the risk evaluation adds to a sign-in attempt (database included, argon2 excluded)',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
      registers,
    }),
    httpRequestDuration: new SeriesHistogram({
      name: 'sso_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code: duration from arrival to the response sent',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    signIns,
    tokensIssued: new Counter({
      name: 'sso_tokens_issued_total',
      help: 'Successful token endpoint responses by grant type',
      labelNames: ['grant_type'] as const,
      registers,
    }),
    watchDatabasePool(stats) {
      poolStats = stats;
      return () => {
        if (poolStats === stats) poolStats = undefined;
      };
    },
  };
}
