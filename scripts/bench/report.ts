// Turns scenario runs into records (the JSON) and the table printed at the end.
import { summarize, type LatencySummary } from './closed-loop.js';
import type { Verification } from './id-token-samples.js';
import type { ScenarioRun } from './scenarios/scenario.js';

export interface RunRecord {
  scenario: string;
  unit: string;
  concurrency: number;
  ops: number;
  elapsedS: number;
  rate: number;
  latency: LatencySummary;
  /** Unexpected answers in the measured window plus sampled ID tokens that failed verification. */
  errors: number;
  errorKinds: Record<string, number>;
  errorExamples: Record<string, string>;
  /** Unexpected answers during the warm-up or the untimed preparation. */
  otherErrors: number;
  otherErrorKinds: Record<string, number>;
  aborted: boolean;
  server: { cpuS: number; cpuMsPerOp: number | null; cpuUtilisation: number; peakRssMiB: number | null; peakRssSinceStart: boolean };
  /** PostgreSQL's processes; null on the embedded database. */
  db: { cpuS: number; cpuMsPerOp: number | null } | null;
  loadGenerator: { cpuS: number; cpuUtilisation: number };
  idTokens?: Verification;
  steps?: Record<string, LatencySummary>;
  notes?: Record<string, unknown>;
  valid: boolean;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

export function toRecord(scenario: string, unit: string, concurrency: number, run: ScenarioRun): RunRecord {
  const perOp = (cpuS: number) => (run.ops > 0 ? round((cpuS * 1000) / run.ops, 3) : null);
  const tokenFailures = run.idTokens ? run.idTokens.checked - run.idTokens.ok : 0;
  const errorKinds = { ...run.errors.counts };
  const errorExamples = { ...run.errors.examples };
  if (tokenFailures > 0) {
    errorKinds.id_token_verification = tokenFailures;
    errorExamples.id_token_verification = JSON.stringify(run.idTokens!.failures);
  }
  const errors = run.errors.total + tokenFailures;
  const wall = run.cpu.wallS || 1;
  return {
    scenario,
    unit,
    concurrency,
    ops: run.ops,
    elapsedS: round(run.elapsedS, 3),
    rate: run.elapsedS > 0 ? round(run.ops / run.elapsedS, 1) : 0,
    latency: summarize(run.hist),
    errors,
    errorKinds,
    errorExamples,
    otherErrors: run.otherErrors.total,
    otherErrorKinds: { ...run.otherErrors.counts },
    aborted: run.aborted,
    server: {
      cpuS: round(run.cpu.serverCpuS, 3),
      cpuMsPerOp: perOp(run.cpu.serverCpuS),
      cpuUtilisation: round(run.cpu.serverCpuS / wall, 2),
      peakRssMiB: run.peakRssKiB === null ? null : round(run.peakRssKiB / 1024, 1),
      peakRssSinceStart: run.peakRssSinceStart,
    },
    db: run.cpu.dbCpuS === null ? null : { cpuS: round(run.cpu.dbCpuS, 3), cpuMsPerOp: perOp(run.cpu.dbCpuS) },
    loadGenerator: { cpuS: round(run.cpu.loadGeneratorCpuS, 3), cpuUtilisation: round(run.cpu.loadGeneratorCpuS / wall, 2) },
    ...(run.idTokens ? { idTokens: run.idTokens } : {}),
    ...(run.steps ? { steps: run.steps } : {}),
    ...(run.notes ? { notes: run.notes } : {}),
    valid: !run.aborted && run.ops > 0 && errors === 0 && run.otherErrors.total === 0 && (!run.idTokens || run.idTokens.checked > 0),
  };
}

const fixed = (x: number | null | undefined, digits: number) => (x === null || x === undefined ? '-' : x.toFixed(digits));

/** One line per run, as it finishes (stderr). */
export function progressLine(r: RunRecord): string {
  const tokens = r.idTokens ? `  id_tokens ${r.idTokens.ok}/${r.idTokens.checked}` : '';
  const kinds = Object.keys(r.errorKinds).length > 0 ? ` ${JSON.stringify(r.errorKinds)}` : '';
  const other = r.otherErrors > 0 ? `  warm-up/setup errors ${JSON.stringify(r.otherErrorKinds)}` : '';
  return (
    `${r.scenario.padEnd(18)} c=${String(r.concurrency).padStart(3)} ${fixed(r.rate, 1).padStart(9)} ${r.unit.padEnd(12)}` +
    ` p50 ${fixed(r.latency.p50Ms, 2)} p99 ${fixed(r.latency.p99Ms, 2)} ms  server ${fixed(r.server.cpuMsPerOp, 3)} ms/op` +
    `${r.db ? `  db ${fixed(r.db.cpuMsPerOp, 3)} ms/op` : ''}  errors ${r.errors}${kinds}${tokens}${other}${r.valid ? '' : '  INVALID'}`
  );
}

/** A Markdown table, columns padded so that it also reads well in a terminal. */
export function table(records: RunRecord[]): string {
  const header = [
    'scenario',
    'conc',
    'ops/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'server CPU ms/op',
    'db CPU ms/op',
    'peak RSS MiB',
    'ID tokens ok',
  ];
  const right = [false, true, true, true, true, true, true, true, true, true];
  const rows = records.map((r) => [
    r.scenario,
    String(r.concurrency),
    `${fixed(r.rate, 1)}${r.valid ? '' : ' INVALID'}`,
    fixed(r.latency.p50Ms, 2),
    fixed(r.latency.p99Ms, 2),
    r.otherErrors > 0 ? `${r.errors} (+${r.otherErrors})` : String(r.errors),
    fixed(r.server.cpuMsPerOp, 3),
    r.db ? fixed(r.db.cpuMsPerOp, 3) : 'in server',
    fixed(r.server.peakRssMiB, 1),
    r.idTokens ? `${r.idTokens.ok}/${r.idTokens.checked}` : '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
