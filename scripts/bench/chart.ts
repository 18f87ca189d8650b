// npm run bench:chart: the throughput chart of docs/benchmarks.md, drawn from a compare.sh result (us against
// the peer, same run) and/or an `npm run bench` result (our scenarios the peer is not measured on).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { renderChart, type ChartRow } from './chart-svg.js';
import { SCENARIOS } from './options.js';
import { PROJECT_DIR } from './project.js';

const USAGE = `usage: npm run bench:chart -- [--compare=FILE] [--bench=FILE] [--concurrency=8] [--out=docs/benchmarks-chart.svg]

--compare is a compare.json written by ../shared/bench/compare.sh (bench-results/compare-<time>/compare.json),
--bench a bench-<time>.json written by npm run bench. Without either, the newest of each in bench-results/ is
used. Scenarios in both come from the compare run (measured side by side with the peer).
`;

/** Issue 4: at least 2x the peer on the hot paths, 1.5x on the static documents. */
const TARGETS: Record<string, number> = { 'full-flow': 2, token: 2, authorize: 2, userinfo: 2, discovery: 1.5, jwks: 1.5 };

interface CompareCell {
  scenario: string;
  concurrency: number;
  unit: string;
  peer: { rate: number | null };
  project: { rate: number | null };
  ratios: { throughput: number | null };
  valid: boolean;
}
interface CompareFile {
  meta: {
    date: string;
    host: { cpus: number };
    postgres: string;
    settings: { durationS: number; rounds: number };
    peer: { version: string };
    project: { name?: string };
  };
  comparisons: CompareCell[];
}
interface BenchFile {
  meta: { date: string; host: { cpus: number }; database: { kind: string } };
  results: Array<{ scenario: string; concurrency: number; unit: string; rate: number; valid: boolean }>;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}`);
  process.exit(2);
}

/** The newest file matching `pattern` among bench-results/<dir>/<file> or bench-results/<file>. */
function newest(match: (relative: string) => boolean): string | undefined {
  const root = path.join(PROJECT_DIR, 'bench-results');
  if (!fs.existsSync(root)) return undefined;
  const candidates = fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter(match)
    .map((f) => path.join(root, f));
  return candidates.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
}

const { values } = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      options: {
        compare: { type: 'string' },
        bench: { type: 'string' },
        concurrency: { type: 'string', default: '8' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
})();
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!/^\d+$/.test(values.concurrency)) fail('--concurrency must be a whole number');
const concurrency = Number(values.concurrency);
const explicit = values.compare !== undefined || values.bench !== undefined;
const compareFile = values.compare ?? (explicit ? undefined : newest((f) => /(^|\/)compare-[^/]+\/compare\.json$/.test(f)));
const benchFile = values.bench ?? (explicit ? undefined : newest((f) => /^bench-[^/]+\.json$/.test(f)));
if (!compareFile && !benchFile) fail('no results found: run npm run bench or ../shared/bench/compare.sh first, or name the files');
const outFile = path.resolve(values.out ?? path.join(PROJECT_DIR, 'docs', 'benchmarks-chart.svg'));

const read = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;
const order = (scenario: string) => (SCENARIOS as readonly string[]).indexOf(scenario) + 1 || 99;
const rows: ChartRow[] = [];
const subtitle: string[] = [];
let peerLabel = 'the peer';
let usLabel = 'this project';

if (compareFile) {
  const compare = read<CompareFile>(compareFile);
  const cells = compare.comparisons.filter((c) => c.concurrency === concurrency);
  if (cells.length === 0)
    fail(
      `${compareFile} has no figures at concurrency ${concurrency} (it has ${[...new Set(compare.comparisons.map((c) => c.concurrency))].join(', ')})`,
    );
  for (const c of cells) {
    if (c.project.rate === null) continue;
    rows.push({
      scenario: c.scenario,
      unit: c.unit,
      us: c.project.rate,
      peer: c.peer.rate,
      ratio: c.ratios.throughput,
      target: TARGETS[c.scenario] ?? null,
      valid: c.valid,
    });
  }
  peerLabel = `node-oidc-provider ${compare.meta.peer.version} (peer)`;
  usLabel = compare.meta.project.name ?? usLabel;
  const m = compare.meta;
  const postgres = m.postgres.split(' (')[0];
  subtitle.push(
    `compare.sh ${m.date.slice(0, 16).replace('T', ' ')} UTC: ${m.settings.rounds} round(s) of ${m.settings.durationS} s per side, ${postgres}, ${m.host.cpus} cores shared by both servers, PostgreSQL and the load generator`,
  );
}
if (benchFile) {
  const bench = read<BenchFile>(benchFile);
  const added = bench.results.filter((r) => r.concurrency === concurrency && !rows.some((row) => row.scenario === r.scenario));
  for (const r of added)
    rows.push({ scenario: r.scenario, unit: r.unit, us: r.rate, peer: null, ratio: null, target: null, valid: r.valid });
  if (added.length > 0) {
    subtitle.push(
      `npm run bench ${bench.meta.date.slice(0, 16).replace('T', ' ')} UTC (${bench.meta.database.kind}, ${bench.meta.host.cpus} cores): ${added.map((r) => r.scenario).join(', ')}`,
    );
  }
}
if (rows.length === 0) fail(`no figures at concurrency ${concurrency}`);
rows.sort((a, b) => order(a.scenario) - order(b.scenario));

const svg = renderChart({ title: `Throughput per scenario, ${concurrency} concurrent clients`, subtitle, rows, usLabel, peerLabel });
fs.mkdirSync(path.dirname(outFile), { recursive: true });
fs.writeFileSync(outFile, svg);
process.stderr.write(
  `wrote ${path.relative(process.cwd(), outFile)} from ${[compareFile, benchFile]
    .filter(Boolean)
    .map((f) => path.relative(process.cwd(), f!))
    .join(' and ')}\n`,
);
