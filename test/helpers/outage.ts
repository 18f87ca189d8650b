// The time without service around a database failover, from every request's start, end and outcome.

export type Step = 'authorize' | 'token' | 'userinfo' | 'refresh';

export interface Outcome {
  step: Step;
  /** performance.now() when sent and when answered (or failed). */
  start: number;
  end: number;
  ok: boolean;
  /** For a failure: the HTTP status (0 when there was no answer), its Retry-After, what it said. */
  status?: number;
  retryAfter?: string | null;
  detail?: string;
}

export interface FailoverReport {
  failures: Outcome[];
  /** When the last failure ended; the kill's time when nothing failed. */
  lastFailureEnd: number;
  /**
   * From the kill to the first success of a request sent after the last failure had ended: the time during which a
   * client could not count on an answer.
   */
  outageMs: number;
  /** Requests sent after the last failure had ended, and all answered. */
  servedAfter: number;
  summary: string;
}

export function failoverReport(outcomes: readonly Outcome[], killAt: number): FailoverReport {
  const failures = outcomes.filter((o) => !o.ok);
  const lastFailureEnd = Math.max(killAt, ...failures.map((o) => o.end));
  const after = outcomes.filter((o) => o.start >= lastFailureEnd);
  const recoveredAt = failures.length === 0 ? killAt : Math.min(...after.filter((o) => o.ok).map((o) => o.end));
  const outageMs = recoveredAt - killAt;
  const tally = new Map<string, number>();
  for (const o of failures) {
    const key = `${o.step} ${o.status}${o.retryAfter ? ` (Retry-After ${o.retryAfter})` : ''}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const since = (ms: number) => `${ms < 0 ? '-' : '+'}${s(Math.abs(ms))}`;
  const firstFailure = Math.min(...failures.map((o) => o.start));
  const summary = [
    `time without service: ${s(outageMs)} after the kill`,
    failures.length === 0
      ? 'no request failed'
      : `${failures.length} requests failed, sent from ${since(firstFailure - killAt)} to ${since(Math.max(...failures.map((o) => o.start)) - killAt)}: ` +
        [...tally].map(([key, n]) => `${key} x${n}`).join(', '),
    `${outcomes.filter((o) => o.end < killAt).length} requests answered before the kill, ${after.length} sent after the last failure`,
  ].join('; ');
  return { failures, lastFailureEnd, outageMs, servedAfter: after.filter((o) => o.ok).length, summary };
}
