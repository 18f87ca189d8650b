// What every scenario is given and returns, and the common shape of a run: warm-up, then one measured window.
import type { RecordableHistogram } from 'node:perf_hooks';
import type { JSONWebKeySet } from 'jose';
import { closedLoop, newHistogram, summarize, type LatencySummary } from '../closed-loop.js';
import type { CookieJar } from '../cookie-jar.js';
import type { CpuMeter, CpuWindow } from '../cpu-meter.js';
import { ErrorTally } from '../errors.js';
import { HttpClient } from '../http-client.js';
import type { Verification } from '../id-token-samples.js';
import type { OidcClient } from '../oidc-client.js';
import type { BenchOptions, ScenarioName } from '../options.js';
import { memory, resetPeakRss } from '../proc-stats.js';

export interface BenchContext {
  readonly oidc: OidcClient;
  readonly origin: URL;
  /** The browser signed in once at the start, with consent given to the client. */
  readonly session: CookieJar;
  /** The bench user's subject. */
  readonly sub: string;
  readonly jwks: JSONWebKeySet;
  readonly meter: CpuMeter;
  /** The server process, or each of several instances (--instances), whose CPU and memory are summed. */
  readonly serverPid: number | readonly number[];
  /** Every instance's port: requests go to each in turn (one entry without --instances). */
  readonly ports: readonly number[];
  /** Told of each measured operation's latency (--soak). */
  readonly onOp?: (ns: number) => void;
  readonly options: BenchOptions;
  /** The PostgreSQL database the server uses (the webhooks scenario writes its events there); none on PGlite. */
  readonly databaseUrl?: string | undefined;
  /** The server's KEYS_ENCRYPTION_SECRET, to seal what the bench writes as the server would. */
  readonly keysEncryptionSecret?: string | undefined;
}

export interface ScenarioRun {
  ops: number;
  /** Seconds of measured load (for the token scenario, the exchanges only). */
  elapsedS: number;
  aborted: boolean;
  hist: RecordableHistogram;
  errors: ErrorTally;
  /** Errors of the warm-up and of untimed preparation: not in the figures, but they make a run invalid. */
  otherErrors: ErrorTally;
  cpu: CpuWindow;
  /** Server peak RSS during this run (warm-up included); the process's lifetime peak when it cannot be reset. */
  peakRssKiB: number | null;
  peakRssSinceStart: boolean;
  idTokens?: Verification;
  steps?: Record<string, LatencySummary>;
  notes?: Record<string, unknown>;
}

export interface Scenario {
  readonly name: ScenarioName;
  /** What one operation is, for the report. */
  readonly unit: string;
  run(ctx: BenchContext, concurrency: number): Promise<ScenarioRun>;
}

/** One operation of virtual user `vu`; `measured` is false during the warm-up. */
export type BenchOperation = (http: HttpClient, vu: number, measured: boolean) => Promise<unknown>;

/** Named latencies of the parts of an operation (full flow, password sign-in). */
export class StepLatencies {
  private readonly histograms = new Map<string, RecordableHistogram>();

  record(step: string, ns: number): void {
    let h = this.histograms.get(step);
    if (!h) this.histograms.set(step, (h = newHistogram()));
    h.record(ns || 1);
  }

  summary(): Record<string, LatencySummary> {
    return Object.fromEntries([...this.histograms].map(([step, h]) => [step, summarize(h)]));
  }
}

/** Starts a run: the server's peak RSS reset, so that the reading at the end is this run's. */
export function beginRun(ctx: BenchContext): { peakRssSinceStart: boolean } {
  return { peakRssSinceStart: !resetPeakRss(ctx.serverPid) };
}

export function peakRss(ctx: BenchContext): number | null {
  return memory(ctx.serverPid).peakKiB;
}

/** Warm-up, then the measured window, over one keep-alive connection per virtual user. */
export async function steadyRun(ctx: BenchContext, concurrency: number, op: BenchOperation): Promise<ScenarioRun> {
  const http = new HttpClient(ctx.origin, concurrency, ctx.ports);
  try {
    const { peakRssSinceStart } = beginRun(ctx);
    const otherErrors = new ErrorTally();
    if (ctx.options.warmupS > 0) {
      await closedLoop({
        concurrency,
        durationMs: ctx.options.warmupS * 1000,
        op: (vu) => op(http, vu, false),
        hist: newHistogram(),
        errors: otherErrors,
      });
    }
    const hist = newHistogram();
    const errors = new ErrorTally();
    const cpu = ctx.meter.emptyWindow();
    const mark = ctx.meter.begin();
    const loop = await closedLoop({
      concurrency,
      durationMs: ctx.options.durationS * 1000,
      op: (vu) => op(http, vu, true),
      hist,
      errors,
      onOp: ctx.onOp,
    });
    ctx.meter.end(mark, cpu);
    return { ...loop, hist, errors, otherErrors, cpu, peakRssKiB: peakRss(ctx), peakRssSinceStart };
  } finally {
    http.close();
  }
}
