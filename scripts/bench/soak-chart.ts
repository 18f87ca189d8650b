// The soak's samples as an SVG of four line charts over time: throughput, p99, server RSS, and table sizes (MiB).
import type { SoakSample } from './soak.js';

const WIDTH = 720;
const PANEL = 170;
const MARGIN = { left: 64, right: 150, top: 28, bottom: 26 };
const COLOURS = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7b83', '#57606a'];

interface Series {
  name: string;
  points: Array<[number, number]>;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / step) * step;
}

function panel(title: string, unit: string, series: Series[], top: number, endS: number): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL - MARGIN.top - MARGIN.bottom;
  const yMax = niceMax(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p[1]))));
  const x = (s: number) => MARGIN.left + (endS > 0 ? (s / endS) * plotW : 0);
  const y = (v: number) => top + MARGIN.top + plotH - (v / yMax) * plotH;
  const out = [
    `<text x="${MARGIN.left}" y="${top + 16}" font-weight="bold">${escape(title)}</text>`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${MARGIN.left + plotW}" y2="${y(0)}" stroke="#8c959f"/>`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${MARGIN.left}" y2="${y(yMax)}" stroke="#8c959f"/>`,
    `<text x="${MARGIN.left - 6}" y="${y(yMax) + 4}" text-anchor="end">${yMax} ${escape(unit)}</text>`,
    `<text x="${MARGIN.left - 6}" y="${y(0) + 4}" text-anchor="end">0</text>`,
    `<text x="${MARGIN.left + plotW}" y="${y(0) + 16}" text-anchor="end">${Math.round(endS)} s</text>`,
  ];
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const points = s.points.map(([sx, v]) => `${x(sx).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points}"/>`);
    out.push(`<text x="${MARGIN.left + plotW + 8}" y="${top + MARGIN.top + 12 + i * 14}" fill="${colour}">${escape(s.name)}</text>`);
  });
  return out.join('\n');
}

export function soakChartSvg(title: string, samples: readonly SoakSample[]): string {
  const measured = samples.filter((s) => s.ops > 0);
  const endS = samples.at(-1)?.atS ?? 0;
  const pick = (name: string, value: (s: SoakSample) => number | null, from = measured): Series => ({
    name,
    points: from.flatMap((s) => {
      const v = value(s);
      return v === null ? [] : [[s.atS, v] as [number, number]];
    }),
  });
  const tables = [...new Set(samples.flatMap((s) => Object.keys(s.tables)))];
  const panels = [
    panel('throughput', 'ops/s', [pick('ops/s', (s) => s.rate)], 30, endS),
    panel('latency per interval', 'ms', [pick('p99', (s) => s.p99Ms), pick('p50', (s) => s.p50Ms)], 30 + PANEL, endS),
    panel('server resident memory', 'MiB', [pick('RSS', (s) => s.rssMiB)], 30 + 2 * PANEL, endS),
    panel(
      'table sizes (with indexes)',
      'MiB',
      tables.map((t) => pick(t, (s) => s.tables[t]?.mib ?? null, samples as SoakSample[])),
      30 + 3 * PANEL,
      endS,
    ),
  ];
  const height = 30 + 4 * PANEL;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${MARGIN.left}" y="18" font-size="13" font-weight="bold">${escape(title)}</text>`,
    ...panels,
    '</svg>',
    '',
  ].join('\n');
}
