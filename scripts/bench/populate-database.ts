// The database of `npm run bench -- --populate=large`: made, migrated and filled once (populate.ts), then kept and
// reused. A comment on the database marks a finished fill; a database of ours without it (a fill cut short) is
// dropped and filled again.
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { populatedDatabaseName, type PopulateOption } from './populate-options.js';
import { populate, populateTable, POPULATED_PASSWORD, type PopulateReport } from './populate.js';
import { assertLoopback, DEFAULT_ADMIN_URL, redacted, serverVersion, withClient, type TargetDatabase } from './target-database.js';

const MARKER_TOOL = 'sso-bench populate';

interface Marker {
  tool: typeof MARKER_TOOL;
  scale: number;
  filledAt: string;
  report: PopulateReport;
}

/** The marker of a finished fill, if the database exists and has one; null when it exists without one. */
async function readMarker(adminUrl: string, name: string): Promise<Marker | null | undefined> {
  const { rows } = await withClient(adminUrl, (c) =>
    c.query<{ comment: string | null }>(`SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`, [
      name,
    ]),
  );
  if (rows.length === 0) return undefined;
  try {
    const marker = JSON.parse(rows[0]!.comment ?? '') as Marker;
    return marker.tool === MARKER_TOOL ? marker : null;
  } catch {
    return null;
  }
}

async function fill(url: URL, name: string, scale: number, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<Marker> {
  const handle = await openDatabase({ url: url.href, dataDir: 'memory://', poolMax: 1 });
  try {
    await migrateToLatest(handle.db);
    const { count } = await handle.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    if (Number(count) > 0) throw new Error(`${name} already holds users but no mark of a finished fill: give --populate an empty database`);
    // One hash at the parameters the server is configured with, so that a populated user can sign in.
    const passwordHash = await new PasswordHasher(loadConfig({ ...env, DATABASE_URL: url.href }).argon2).hash(POPULATED_PASSWORD);
    log(`filling ${name} at scale ${scale} (a database the size of a real deployment: docs/benchmarks.md)`);
    const report = await populate(handle.db, { scale, now: new Date(), passwordHash, bulk: true, progress: log });
    const marker: Marker = { tool: MARKER_TOOL, scale, filledAt: new Date().toISOString(), report };
    await withClient(url.href, (c) =>
      c.query(`COMMENT ON DATABASE ${c.escapeIdentifier(name)} IS ${c.escapeLiteral(JSON.stringify(marker))}`),
    );
    return marker;
  } finally {
    await handle.close();
  }
}

/**
 * BENCH_DATABASE_URL when set (filled only if it has no user yet), else sso_bench_large (of this scale) through
 * BENCH_PG_ADMIN_URL. The server runs on it with the purge off, so that every run measures the same rows (the
 * fill's expired rows would otherwise go at its first purge, during the measurement).
 */
export async function populatedDatabase(
  option: PopulateOption,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<TargetDatabase> {
  const given = env.BENCH_DATABASE_URL?.trim();
  const adminUrl = given || env.BENCH_PG_ADMIN_URL?.trim() || DEFAULT_ADMIN_URL;
  const url = assertLoopback(adminUrl, given ? 'BENCH_DATABASE_URL' : 'BENCH_PG_ADMIN_URL');
  if (!given) url.pathname = `/${populatedDatabaseName(option.scale)}`;
  const name = decodeURIComponent(url.pathname.slice(1));

  let marker = await readMarker(adminUrl, name);
  if (marker && marker.scale !== option.scale)
    throw new Error(`${name} was filled at scale ${marker.scale}, not ${option.scale}: name another database (BENCH_DATABASE_URL)`);
  if (marker) {
    log(`${name}: filled at scale ${marker.scale} on ${marker.filledAt} in ${marker.report.seconds.toFixed(0)} s; reused as it is`);
  } else {
    if (!given) {
      // FORCE ends the connections a killed fill may have left behind (PostgreSQL 13+).
      if (marker === null) await withClient(adminUrl, (c) => c.query(`DROP DATABASE ${c.escapeIdentifier(name)} WITH (FORCE)`));
      await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
    }
    marker = await fill(url, name, option.scale, env, log);
  }
  log(populateTable(marker.report));
  // The purge is off unless asked for (a soak measures it), so that the fill's expired rows stay for the next run.
  const purge = env.PURGE_INTERVAL_SECONDS ?? '0';
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url.href, PURGE_INTERVAL_SECONDS: purge },
    description: `PostgreSQL ${redacted(url)} (populated at scale ${option.scale}, kept; ${purge === '0' ? 'the purge off' : `a purge every ${purge} s`})`,
    serverVersion: await serverVersion(url.href),
    dispose: async () => {},
  };
}
