// Closed-loop load: `concurrency` virtual users, each starting its next operation as soon as the last one
// ended, until the time is up. Latencies go into an HDR histogram in nanoseconds.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { type ErrorTally } from './errors.js';

export function newHistogram(): RecordableHistogram {
  return createHistogram({ lowest: 1, highest: 300e9, figures: 3 });
}

export interface LatencySummary {
  count: number;
  meanMs: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export function summarize(h: RecordableHistogram): LatencySummary {
  const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;
  if (h.count === 0) return { count: 0, meanMs: null, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null };
  return {
    count: h.count,
    meanMs: ms(h.mean),
    p50Ms: ms(h.percentile(50)),
    p90Ms: ms(h.percentile(90)),
    p99Ms: ms(h.percentile(99)),
    maxMs: ms(h.max),
  };
}

/** One operation of virtual user `vu`; resolving `false` says there is no more work (the loop ends early). */
export type Operation = (vu: number) => Promise<unknown>;

export interface LoopResult {
  ops: number;
  elapsedS: number;
  /** Ended because nothing but errors happened. */
  aborted: boolean;
}

export interface LoopOptions {
  concurrency: number;
  durationMs: number;
  op: Operation;
  hist: RecordableHistogram;
  errors: ErrorTally;
  /** Told of each successful operation's latency in nanoseconds, as it ends (the soak's per-interval figures). */
  onOp?: ((ns: number) => void) | undefined;
}

/** A run in which errors outnumber successes tenfold (after 100 of them) stops: a broken server must not spin. */
const ABORT_AFTER_ERRORS = 100;

export async function closedLoop({ concurrency, durationMs, op, hist, errors, onOp }: LoopOptions): Promise<LoopResult> {
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(durationMs * 1e6));
  const errorsBefore = errors.total;
  let ops = 0;
  let aborted = false;
  const user = async (vu: number) => {
    for (;;) {
      const t0 = process.hrtime.bigint();
      if (t0 >= deadline || aborted) return;
      try {
        if ((await op(vu)) === false) return;
        const ns = Number(process.hrtime.bigint() - t0) || 1;
        hist.record(ns);
        onOp?.(ns);
        ops += 1;
      } catch (err) {
        errors.add(err);
        const failed = errors.total - errorsBefore;
        if (failed >= ABORT_AFTER_ERRORS && failed > ops * 10) aborted = true;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, vu) => user(vu)));
  // Until the last operation in flight ended, so that ops / elapsedS is the rate actually served.
  return { ops, elapsedS: Number(process.hrtime.bigint() - start) / 1e9, aborted };
}
