// npm run bench -- --soak=SECONDS (issue 21): one scenario at one concurrency for a long time, sampled every
// --sample seconds: throughput, p50 and p99 of the interval, the server's resident memory and CPU, PostgreSQL's CPU,
// and the rows and size of the tables that grow with traffic (which the purge job must keep flat).
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import pg from 'pg';
import { cpuBetween, cpuByName, cpuSeconds, memory } from './proc-stats.js';
import type { BenchContext, Scenario, ScenarioRun } from './scenarios/scenario.js';

/** The tables a sign-in writes to, and the largest ones of a real deployment. */
export const SOAK_TABLES = [
  'authorization_codes',
  'access_tokens',
  'refresh_tokens',
  'sessions',
  'session_clients',
  'devices',
  'sign_in_attempts',
  'interactions',
] as const;

export interface TableSize {
  /** PostgreSQL's live-row estimate (pg_stat_user_tables.n_live_tup): exact counts of large tables cost too much. */
  rows: number;
  /** The table with its indexes and TOAST (pg_total_relation_size). */
  mib: number;
}

export interface SoakSample {
  /** Seconds since the soak started. */
  atS: number;
  ops: number;
  rate: number;
  p50Ms: number | null;
  p99Ms: number | null;
  rssMiB: number | null;
  serverCpuMsPerOp: number | null;
  dbCpuMsPerOp: number | null;
  tables: Record<string, TableSize>;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

async function tableSizes(client: pg.Client): Promise<Record<string, TableSize>> {
  const { rows } = await client.query<{ relname: string; rows: string; bytes: string }>(
    'SELECT relname, n_live_tup AS rows, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE relname = ANY($1)',
    [SOAK_TABLES],
  );
  return Object.fromEntries(rows.map((r) => [r.relname, { rows: Number(r.rows), mib: round(Number(r.bytes) / 2 ** 20, 1) }]));
}

export async function soak(
  ctx: BenchContext,
  scenario: Scenario,
  concurrency: number,
  settings: { seconds: number; sampleS: number; databaseUrl: string },
): Promise<{ run: ScenarioRun; samples: SoakSample[] }> {
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  await client.connect();
  try {
    const samples: SoakSample[] = [];
    const start = process.hrtime.bigint();
    let hist: RecordableHistogram = createHistogram({ lowest: 1, highest: 300e9, figures: 3 });
    let last = { server: cpuSeconds(ctx.serverPid), db: cpuByName('postgres') };
    samples.push({
      atS: 0,
      ops: 0,
      rate: 0,
      p50Ms: null,
      p99Ms: null,
      rssMiB: null,
      serverCpuMsPerOp: null,
      dbCpuMsPerOp: null,
      tables: await tableSizes(client),
    });
    let sampling = Promise.resolve();
    const takeSample = async () => {
      const interval = hist;
      hist = createHistogram({ lowest: 1, highest: 300e9, figures: 3 });
      const now = { server: cpuSeconds(ctx.serverPid), db: cpuByName('postgres') };
      const atS = Number(process.hrtime.bigint() - start) / 1e9;
      const previous = samples.at(-1)!;
      const ops = interval.count;
      const perOp = (cpuS: number | null) => (cpuS === null || ops === 0 ? null : round((cpuS * 1000) / ops, 3));
      const rss = memory(ctx.serverPid).rssKiB;
      samples.push({
        atS: round(atS, 1),
        ops,
        rate: round(ops / (atS - previous.atS), 1),
        p50Ms: ops === 0 ? null : round(interval.percentile(50) / 1e6, 2),
        p99Ms: ops === 0 ? null : round(interval.percentile(99) / 1e6, 2),
        rssMiB: rss === null ? null : round(rss / 1024, 1),
        serverCpuMsPerOp: perOp(now.server === null || last.server === null ? null : now.server - last.server),
        dbCpuMsPerOp: perOp(cpuBetween(last.db, now.db)),
        tables: await tableSizes(client),
      });
      last = now;
    };
    const timer = setInterval(() => {
      sampling = sampling.then(takeSample);
    }, settings.sampleS * 1000);
    let run: ScenarioRun;
    try {
      run = await scenario.run(
        { ...ctx, options: { ...ctx.options, durationS: settings.seconds, warmupS: 0 }, onOp: (ns) => hist.record(ns) },
        concurrency,
      );
    } finally {
      clearInterval(timer);
    }
    await sampling;
    await takeSample();
    return { run, samples };
  } finally {
    await client.end();
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export interface SoakSummary {
  /** Mean throughput over the first and over the last minute. */
  firstMinuteRate: number | null;
  lastMinuteRate: number | null;
  p99Ms: { min: number | null; median: number | null; max: number | null };
  /** Resident memory one minute in and at the end; issue 21 asks for under 5 % growth between them. */
  rssMiB: { afterFirstMinute: number | null; end: number | null; growthPercent: number | null };
  tables: Record<string, { start: TableSize | null; end: TableSize | null }>;
}

export function soakSummary(samples: readonly SoakSample[]): SoakSummary {
  const measured = samples.filter((s) => s.ops > 0);
  const end = samples.at(-1);
  const meanRate = (list: SoakSample[]) => {
    if (list.length === 0) return null;
    const ops = list.reduce((a, s) => a + s.ops, 0);
    const first = samples[samples.indexOf(list[0]!) - 1]?.atS ?? 0;
    return round(ops / (list.at(-1)!.atS - first), 1);
  };
  const endS = end?.atS ?? 0;
  const firstMinute = measured.filter((s) => s.atS <= 60);
  const lastMinute = measured.filter((s) => s.atS > endS - 60);
  const p99s = measured.map((s) => s.p99Ms).filter((p): p is number => p !== null);
  const afterFirstMinute = measured.find((s) => s.atS >= 60)?.rssMiB ?? null;
  const endRss = end?.rssMiB ?? null;
  const tables: SoakSummary['tables'] = {};
  for (const name of new Set(samples.flatMap((s) => Object.keys(s.tables)))) {
    tables[name] = { start: samples[0]?.tables[name] ?? null, end: end?.tables[name] ?? null };
  }
  return {
    firstMinuteRate: meanRate(firstMinute),
    lastMinuteRate: meanRate(lastMinute),
    p99Ms: { min: p99s.length ? Math.min(...p99s) : null, median: median(p99s), max: p99s.length ? Math.max(...p99s) : null },
    rssMiB: {
      afterFirstMinute,
      end: endRss,
      growthPercent: afterFirstMinute === null || endRss === null ? null : round(((endRss - afterFirstMinute) / afterFirstMinute) * 100, 1),
    },
    tables,
  };
}

export function soakTable(summary: SoakSummary): string {
  const fixed = (x: number | null | undefined, d: number) => (x === null || x === undefined ? '-' : x.toFixed(d));
  const lines = [
    `throughput: ${fixed(summary.firstMinuteRate, 1)}/s in the first minute, ${fixed(summary.lastMinuteRate, 1)}/s in the last`,
    `p99 per interval: min ${fixed(summary.p99Ms.min, 2)} ms, median ${fixed(summary.p99Ms.median, 2)} ms, max ${fixed(summary.p99Ms.max, 2)} ms`,
    `server RSS: ${fixed(summary.rssMiB.afterFirstMinute, 1)} MiB after the first minute, ${fixed(summary.rssMiB.end, 1)} MiB at the end (${fixed(summary.rssMiB.growthPercent, 1)} %)`,
    '',
    '| table | rows at start | rows at end | MiB at start | MiB at end |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(summary.tables).map(
      ([name, t]) => `| ${name} | ${t.start?.rows ?? '-'} | ${t.end?.rows ?? '-'} | ${fixed(t.start?.mib, 1)} | ${fixed(t.end?.mib, 1)} |`,
    ),
  ];
  return lines.join('\n');
}
