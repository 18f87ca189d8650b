// Draws throughput per scenario, the project against the peer, as a hand-written SVG bar chart: one row per
// scenario, bars scaled within the row (rates differ by orders of magnitude between scenarios), values printed.

export interface ChartRow {
  scenario: string;
  unit: string;
  us: number;
  /** null when there is no peer figure for this scenario (our own bench only). */
  peer: number | null;
  ratio: number | null;
  /** The throughput target for this scenario (x the peer), when it has one. */
  target: number | null;
  valid: boolean;
}

export interface ChartInput {
  title: string;
  subtitle: string[];
  rows: ChartRow[];
  usLabel: string;
  peerLabel: string;
}

const WIDTH = 900;
const LABEL_W = 190;
const BAR_MAX = 480;
const ROW_H = 46;
const BAR_H = 15;
const TOP = 70;
const COLOURS = {
  us: '#2563eb',
  usAlone: '#93c5fd',
  peer: '#9ca3af',
  text: '#111827',
  muted: '#6b7280',
  good: '#15803d',
  short: '#b45309',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function formatRate(x: number): string {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
}

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${x}" y="${y}" ${attrs}>${esc(content)}</text>`;
}

/** Splits a line at spaces so that it fits the chart's width. */
function wrap(line: string, max = 125): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current && current.length + word.length + 1 > max) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  return current ? [...lines, current] : lines;
}

export function renderChart(input: ChartInput): string {
  const subtitle = input.subtitle.flatMap((line) => wrap(line));
  const subtitleH = subtitle.length * 16;
  const top = TOP + subtitleH;
  const height = top + input.rows.length * ROW_H + 40;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="13">`,
  );
  out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(text(20, 30, input.title, `font-size="17" font-weight="600" fill="${COLOURS.text}"`));
  subtitle.forEach((line, i) => out.push(text(20, 52 + i * 16, line, `fill="${COLOURS.muted}" font-size="12"`)));

  // Legend
  const legendY = top - 12;
  out.push(`<rect x="${LABEL_W}" y="${legendY - 10}" width="12" height="12" fill="${COLOURS.us}"/>`);
  out.push(text(LABEL_W + 18, legendY, input.usLabel, `fill="${COLOURS.text}"`));
  if (input.rows.some((row) => row.peer !== null)) {
    out.push(`<rect x="${LABEL_W + 200}" y="${legendY - 10}" width="12" height="12" fill="${COLOURS.peer}"/>`);
    out.push(text(LABEL_W + 218, legendY, input.peerLabel, `fill="${COLOURS.text}"`));
  }

  input.rows.forEach((row, i) => {
    const y = top + i * ROW_H + 8;
    const max = Math.max(row.us, row.peer ?? 0) || 1;
    const barW = (v: number) => Math.max(1, (v / max) * BAR_MAX);
    out.push(text(20, y + 15, row.scenario, `font-weight="600" fill="${COLOURS.text}"`));
    out.push(text(20, y + 31, row.unit, `fill="${COLOURS.muted}" font-size="12"`));

    if (row.peer !== null) {
      const usW = barW(row.us);
      const peerW = barW(row.peer);
      out.push(`<rect x="${LABEL_W}" y="${y}" width="${usW.toFixed(1)}" height="${BAR_H}" rx="2" fill="${COLOURS.us}"/>`);
      out.push(text(LABEL_W + usW + 6, y + 12, formatRate(row.us), `fill="${COLOURS.text}"`));
      out.push(`<rect x="${LABEL_W}" y="${y + BAR_H + 3}" width="${peerW.toFixed(1)}" height="${BAR_H}" rx="2" fill="${COLOURS.peer}"/>`);
      out.push(text(LABEL_W + peerW + 6, y + BAR_H + 15, formatRate(row.peer), `fill="${COLOURS.muted}"`));
    } else {
      // Nothing to scale against: the figure alone, no bar.
      out.push(`<rect x="${LABEL_W}" y="${y}" width="4" height="${BAR_H}" fill="${COLOURS.usAlone}"/>`);
      out.push(text(LABEL_W + 10, y + 12, formatRate(row.us), `fill="${COLOURS.text}"`));
      out.push(
        text(
          LABEL_W + 10,
          y + BAR_H + 15,
          'no peer figure (our benchmark only)',
          `fill="${COLOURS.muted}" font-size="12" font-style="italic"`,
        ),
      );
    }

    if (row.ratio !== null) {
      const met = row.target === null || row.ratio >= row.target;
      const colour = !row.valid ? COLOURS.short : met ? COLOURS.good : COLOURS.short;
      out.push(
        text(
          WIDTH - 20,
          y + 15,
          `${row.ratio.toFixed(2)}x${row.valid ? '' : ' INVALID'}`,
          `text-anchor="end" font-weight="600" fill="${colour}"`,
        ),
      );
      if (row.target !== null)
        out.push(text(WIDTH - 20, y + 31, `target ${row.target}x`, `text-anchor="end" fill="${COLOURS.muted}" font-size="12"`));
    }
  });
  out.push(
    text(
      20,
      height - 14,
      "Bars are scaled within each scenario; the figures are operations per second; the ratio is ours over the peer's.",
      `fill="${COLOURS.muted}" font-size="12"`,
    ),
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
