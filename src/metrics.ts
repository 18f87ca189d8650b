// The process's Prometheus metrics: one registry, served at GET /metrics. prom-client is the standard
// Node client (histogram buckets, label handling and the text format are its job, not ours).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'sso_' });

export const riskVerdicts = new Counter({
  name: 'sso_risk_verdicts_total',
  help: 'Sign-in risk verdicts by action',
  labelNames: ['action'] as const,
  registers: [registry],
});

export const riskReasons = new Counter({
  name: 'sso_risk_reasons_total',
  help: 'Reasons found by sign-in risk evaluations',
  labelNames: ['reason', 'action'] as const,
  registers: [registry],
});

export const riskEvaluationSeconds = new Histogram({
  name: 'sso_risk_evaluation_seconds',
  help: 'Time the risk evaluation adds to a sign-in attempt (database included, argon2 excluded)',
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
  registers: [registry],
});
