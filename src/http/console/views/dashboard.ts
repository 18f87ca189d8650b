// The console dashboard: one bar chart per series and range, drawn here as SVG (no script), each with a text
// alternative (WCAG 2.1 1.1.1) giving its total, its busiest bucket and its figures.
import { html, type SafeHtml } from '../../../html.js';
import type { Chart } from '../../../domain/console/dashboard.js';
import type { Translate } from '../../../i18n/translate.js';

const WIDTH = 320;
const HEIGHT = 120;
const AXIS = 16;

function label(chart: Chart, start: Date): string {
  const iso = start.toISOString();
  return chart.range === 'day' ? `${iso.slice(11, 13)}:00` : iso.slice(5, 10);
}

function barChart(t: Translate, chart: Chart, id: string): SafeHtml {
  const max = Math.max(1, ...chart.buckets.map((b) => b.count));
  const slot = WIDTH / chart.buckets.length;
  const plot = HEIGHT - AXIS;
  const caption = t('console.chart.caption', {
    series: t(`console.chart.${chart.series}`),
    range: t(`console.chart.${chart.range}`),
    total: chart.total,
  });
  const figures = chart.buckets.map((b) => `${label(chart, b.start)}: ${b.count}`).join(', ');
  const every = chart.range === 'day' ? 6 : 1;
  return html`<figure>
<figcaption id="${id}-caption">${caption}</figcaption>
<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-caption ${id}-desc" xmlns="http://www.w3.org/2000/svg">
<desc id="${id}-desc">${t('console.chart.counts', { figures })}</desc>
<line x1="0" y1="${plot}" x2="${WIDTH}" y2="${plot}"></line>
${chart.buckets.map((b, i) => {
  const h = Math.round((b.count / max) * (plot - 12));
  const x = i * slot + slot * 0.15;
  return html`<rect x="${x.toFixed(1)}" y="${plot - h}" width="${(slot * 0.7).toFixed(1)}" height="${h}"></rect>${
    i % every === 0 ? html`<text x="${x.toFixed(1)}" y="${HEIGHT - 4}">${label(chart, b.start)}</text>` : ''
  }`;
})}
<text x="2" y="10">${t('console.chart.max', { max })}</text>
</svg>
</figure>`;
}

export function dashboardBody(t: Translate, charts: readonly Chart[]): SafeHtml {
  return html`<p class="meta">${t('console.dashboard.meta')}</p>
<div class="charts">${charts.map((chart, i) => barChart(t, chart, `chart-${i}`))}</div>`;
}
