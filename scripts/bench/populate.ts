// Fills a migrated, empty database with the rows of populate-sql.ts on one connection, ANALYZEs what it filled and
// reports rows and MiB per table. Used by `npm run bench -- --populate=large` and, at a small scale, by the test
// that the hot statements use indexes (test/storage/hot-statements-use-indexes.test.ts).
import { sql } from 'kysely';
import type { Db } from '../../src/storage/database.js';
import { CLEANUP, countsAt, fillStatements, HELPERS, keyStatements } from './populate-sql.js';

/** Every populated user's password (and every populated confidential client's secret): a bench database only. */
export const POPULATED_PASSWORD = 'populated-user-password';

export interface PopulateOptions {
  /** 1 for the sizes of issue 21; 0.01 for a copy a hundredth of that, with the same distributions. */
  scale: number;
  now: Date;
  /** The argon2id hash of POPULATED_PASSWORD. */
  passwordHash: string;
  /**
   * PostgreSQL only, for the large fill: skip the per-row foreign key triggers (session_replication_role = replica:
   * the rows are made to satisfy them, and the small fill of the test runs with them on) and build each table's
   * indexes once after its rows rather than row by row.
   */
  bulk?: boolean;
  /** Told each table as it is done. */
  progress?: (line: string) => void;
}

export interface TableReport {
  table: string;
  rows: number;
  mib: number;
  seconds: number;
}

export interface PopulateReport {
  tables: TableReport[];
  seconds: number;
}

const seconds = (since: number) => (performance.now() - since) / 1000;

export async function populate(db: Db, options: PopulateOptions): Promise<PopulateReport> {
  const started = performance.now();
  const values = { counts: countsAt(options.scale), now: options.now, passwordHash: options.passwordHash };
  const tables: TableReport[] = [];
  await db.connection().execute(async (conn) => {
    for (const helper of HELPERS) await helper.execute(conn);
    if (options.bulk) await sql`SET session_replication_role = replica`.execute(conn);
    await sql`SET maintenance_work_mem = '256MB'`.execute(conn);
    const keysStarted = performance.now();
    for (const statement of keyStatements(values)) await statement.execute(conn);
    options.progress?.(`device and login keys (temporary tables): ${seconds(keysStarted).toFixed(1)} s`);
    for (const { table, statement } of fillStatements(values)) {
      const tableStarted = performance.now();
      const dropped = options.bulk ? await dropIndexes(conn, table) : [];
      const result = await statement.execute(conn);
      for (const definition of dropped) await sql.raw(definition).execute(conn);
      // VACUUM as well after a bulk fill: it sets the rows' hint bits and the visibility map once, here, rather than
      // in the first bench run's reads and in an autovacuum during it.
      await (options.bulk ? sql`VACUUM (ANALYZE) ${sql.table(table)}` : sql`ANALYZE ${sql.table(table)}`).execute(conn);
      const report = { table, rows: Number(result.numAffectedRows ?? 0n), mib: await sizeMiB(conn, table), seconds: seconds(tableStarted) };
      tables.push(report);
      options.progress?.(`${table}: ${report.rows} rows, ${report.mib.toFixed(1)} MiB, ${report.seconds.toFixed(1)} s`);
    }
    if (options.bulk) await sql`RESET session_replication_role`.execute(conn);
    await sql`RESET maintenance_work_mem`.execute(conn);
    for (const statement of CLEANUP) await statement.execute(conn);
  });
  return { tables, seconds: seconds(started) };
}

/**
 * Drops the table's indexes, and the primary key and unique constraints no foreign key relies on; returns the
 * statements that make them again, each in one sorted pass over the filled table.
 */
async function dropIndexes(db: Db, table: string): Promise<string[]> {
  const { rows } = await sql<{ drop: string; make: string }>`
    SELECT CASE WHEN c.conname IS NULL THEN format('DROP INDEX %I', i.relname) ELSE format('ALTER TABLE %I DROP CONSTRAINT %I', ${table}::text, c.conname) END AS drop,
      CASE WHEN c.conname IS NULL THEN pg_get_indexdef(i.oid) ELSE format('ALTER TABLE %I ADD CONSTRAINT %I %s', ${table}::text, c.conname, pg_get_constraintdef(c.oid)) END AS make
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid LEFT JOIN pg_constraint c ON c.conindid = i.oid AND c.conrelid = x.indrelid
    WHERE x.indrelid = ${table}::regclass
      AND NOT EXISTS (SELECT 1 FROM pg_constraint r WHERE r.contype = 'f' AND r.confrelid = x.indrelid AND r.conindid = i.oid)`.execute(db);
  for (const { drop } of rows) await sql.raw(drop).execute(db);
  return rows.map((r) => r.make);
}

async function sizeMiB(db: Db, table: string): Promise<number> {
  const { rows } = await sql<{ bytes: string }>`SELECT pg_total_relation_size(${table}::regclass)::text AS bytes`.execute(db);
  return Number(rows[0]!.bytes) / 2 ** 20;
}

/** The report as a table: rows and MiB per table, and the totals. */
export function populateTable(report: PopulateReport): string {
  const lines = [`${'table'.padEnd(22)} ${'rows'.padStart(12)} ${'MiB'.padStart(9)} ${'s'.padStart(7)}`];
  for (const t of report.tables)
    lines.push(`${t.table.padEnd(22)} ${String(t.rows).padStart(12)} ${t.mib.toFixed(1).padStart(9)} ${t.seconds.toFixed(1).padStart(7)}`);
  const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
  const mib = report.tables.reduce((sum, t) => sum + t.mib, 0);
  lines.push(`${'total'.padEnd(22)} ${String(rows).padStart(12)} ${mib.toFixed(1).padStart(9)} ${report.seconds.toFixed(1).padStart(7)}`);
  return lines.join('\n');
}
