// The console dashboard's figures (issue 20): sign-ins, failed sign-ins, risk verdicts (challenged, blocked) and new
// users over the last 24 hours by hour and the last 7 days by day, each bucket ending at the current clock.
import { countByBucket, type CountedSeries } from '../../storage/console-counts.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';

export interface Bucket {
  /** Where the bucket starts. */
  start: Date;
  count: number;
}

export interface Chart {
  series: CountedSeries;
  range: 'day' | 'week';
  buckets: Bucket[];
  total: number;
}

export const DASHBOARD_SERIES: readonly CountedSeries[] = ['sign_ins', 'failures', 'challenged', 'blocked', 'new_users'];

const RANGES = { day: { buckets: 24, seconds: 3600 }, week: { buckets: 7, seconds: 86_400 } } as const;

export async function dashboardCharts(ctx: Pick<ProviderContext, 'db' | 'clock'>): Promise<Chart[]> {
  const end = ctx.clock();
  const wanted = DASHBOARD_SERIES.flatMap((series) => (['day', 'week'] as const).map((range) => ({ series, range })));
  return Promise.all(
    wanted.map(async ({ series, range }) => {
      const { buckets: n, seconds } = RANGES[range];
      const start = addSeconds(end, -n * seconds);
      const counts = await countByBucket(ctx.db, series, start, end, seconds);
      const buckets = Array.from({ length: n }, (_, i) => ({ start: addSeconds(start, i * seconds), count: counts.get(i) ?? 0 }));
      return { series, range, buckets, total: buckets.reduce((sum, b) => sum + b.count, 0) };
    }),
  );
}
