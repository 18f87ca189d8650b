// npm run bench -- --soak (issue 21): the summary of the samples (throughput first and last minute, p99 spread, RSS
// growth after the first minute, table sizes at start and end) and its charts.
import t from 'tap';
import { parseOptions } from '../../scripts/bench/options.js';
import { soakSummary, type SoakSample } from '../../scripts/bench/soak.js';
import { soakChartSvg } from '../../scripts/bench/soak-chart.js';

function sample(atS: number, ops: number, p99Ms: number | null, rssMiB: number | null, tokens: number): SoakSample {
  return {
    atS,
    ops,
    rate: ops / 30,
    p50Ms: p99Ms === null ? null : p99Ms / 2,
    p99Ms,
    rssMiB,
    serverCpuMsPerOp: null,
    dbCpuMsPerOp: null,
    tables: { access_tokens: { rows: tokens, mib: tokens / 1000 } },
  };
}

const samples = [
  sample(0, 0, null, null, 100),
  sample(30, 300, 20, 150, 400),
  sample(60, 330, 24, 160, 500),
  sample(90, 360, 22, 164, 500),
  sample(120, 270, 30, 168, 480),
];

t.test('the summary compares the first and last minute, and RSS one minute in with the end', async (t) => {
  const s = soakSummary(samples);
  t.equal(s.firstMinuteRate, 10.5, '(300 + 330) / 60 s');
  t.equal(s.lastMinuteRate, 10.5, '(360 + 270) / 60 s');
  t.same(s.p99Ms, { min: 20, median: 24, max: 30 });
  t.same(s.rssMiB, { afterFirstMinute: 160, end: 168, growthPercent: 5 });
  t.same(s.tables.access_tokens, { start: { rows: 100, mib: 0.1 }, end: { rows: 480, mib: 0.48 } });
});

t.test('the charts draw one line per series, tables included', async (t) => {
  const svg = soakChartSvg('full-flow <test>', samples);
  t.match(svg, /^<svg /);
  t.match(svg, /full-flow &lt;test>/, 'the title is escaped');
  t.equal(svg.match(/<polyline /g)?.length, 5, 'throughput, p99, p50, RSS and one table');
});

t.test('--soak takes one scenario at one concurrency, on PostgreSQL', async (t) => {
  const o = parseOptions(['--soak=1200', '--scenarios=full-flow', '--concurrency=32'])!;
  t.same([o.soakS, o.sampleS], [1200, 10]);
  t.equal(parseOptions([])!.soakS, 0);
  t.throws(() => parseOptions(['--soak=1200']), /one scenario at one concurrency/);
  t.throws(() => parseOptions(['--soak=10', '--scenarios=full-flow', '--concurrency=8']), /from 30/);
  t.throws(() => parseOptions(['--soak=60', '--scenarios=full-flow', '--concurrency=8', '--embedded']), /does not combine/);
});
