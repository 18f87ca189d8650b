// The console dashboard's figures (issue 20): sign-ins, failed sign-ins, risk verdicts (challenged, blocked) and new
// users over the last 24 hours by hour and the last 7 days by day. Buckets are whole UTC hours and days, the last one
// the current hour or day (so far), so a bar's label is the hour or the day it counts.
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

/** The start of the UTC hour or day `at` falls in (epoch arithmetic: UTC days are 86 400 seconds). */
const floorTo = (at: Date, seconds: number): Date => new Date(Math.floor(at.getTime() / (seconds * 1000)) * seconds * 1000);

export async function dashboardCharts(ctx: Pick<ProviderContext, 'db' | 'clock'>): Promise<Chart[]> {
  const now = ctx.clock();
  const wanted = DASHBOARD_SERIES.flatMap((series) => (['day', 'week'] as const).map((range) => ({ series, range })));
  return Promise.all(
    wanted.map(async ({ series, range }) => {
      const { buckets: n, seconds } = RANGES[range];
      // The last bucket is the one now falls in; the first starts n - 1 buckets before it.
      const start = addSeconds(floorTo(now, seconds), -(n - 1) * seconds);
      const counts = await countByBucket(ctx.db, series, start, addSeconds(now, 1), seconds);
      const buckets = Array.from({ length: n }, (_, i) => ({ start: addSeconds(start, i * seconds), count: counts.get(i) ?? 0 }));
      return { series, range, buckets, total: buckets.reduce((sum, b) => sum + b.count, 0) };
    }),
  );
}
