// The web console dashboard's counts (issue 20): rows of a table per time bucket (an hour, a day) since a start, in
// one grouped statement per series, bucketed by epoch arithmetic so that the session's time zone plays no part.
import { sql } from 'kysely';
import type { Db } from './database.js';

/** What the dashboard counts. */
export type CountedSeries = 'sign_ins' | 'failures' | 'challenged' | 'blocked' | 'new_users';

function source(db: Db, series: CountedSeries) {
  switch (series) {
    case 'sign_ins':
      return db
        .selectFrom('security_events')
        .where('type', '=', 'sign_in_allowed')
        .select(sql<Date>`created_at`.as('at'));
    case 'challenged':
      return db
        .selectFrom('security_events')
        .where('type', '=', 'sign_in_challenged')
        .select(sql<Date>`created_at`.as('at'));
    case 'blocked':
      return db
        .selectFrom('security_events')
        .where('type', '=', 'sign_in_blocked')
        .select(sql<Date>`created_at`.as('at'));
    case 'failures':
      // Failed attempts are kept only as long as the risk evaluation looks back (src/jobs/purge-job.ts).
      return db
        .selectFrom('sign_in_attempts')
        .where('succeeded', '=', false)
        .select(sql<Date>`at`.as('at'));
    case 'new_users':
      return db.selectFrom('users').select(sql<Date>`created_at`.as('at'));
  }
}

/** Counts per bucket of `bucketSeconds` from `start` (bucket 0) up to `end`; buckets with no row are absent. */
export async function countByBucket(
  db: Db,
  series: CountedSeries,
  start: Date,
  end: Date,
  bucketSeconds: number,
): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom(source(db, series).as('s'))
    .where('s.at', '>=', start)
    .where('s.at', '<', end)
    .select([
      sql<number>`floor(extract(epoch from (s.at - ${start}::timestamptz)) / ${bucketSeconds})::int`.as('bucket'),
      sql<string>`count(*)::text`.as('n'),
    ])
    .groupBy('bucket')
    .execute();
  return new Map(rows.map((r) => [Number(r.bucket), Number(r.n)]));
}
