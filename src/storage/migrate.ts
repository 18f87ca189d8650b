// Applies the plain .sql files of migrations/ in name order, each once, inside Kysely's Migrator
// (a transaction and an advisory lock, so that several instances starting at once apply each file once).
import { promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { DEFAULT_MIGRATION_TABLE, Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import { PROJECT_ROOT } from '../project-root.js';
import type { Db } from './database.js';
import { splitSqlStatements } from './sql-statements.js';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

class SqlFileMigrationProvider implements MigrationProvider {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(this.dir)).filter((f) => f.endsWith('.sql')).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const statements = splitSqlStatements(await fs.readFile(path.join(this.dir, file), 'utf8'));
      migrations[file.replace(/\.sql$/, '')] = {
        up: async (db) => {
          for (const statement of statements) await sql.raw(statement).execute(db);
        },
      };
    }
    return migrations;
  }
}

export interface MigrationReport {
  applied: string[];
  /** Migrations in the database that this build does not ship: a newer version ran them. */
  newer: string[];
}

/**
 * Brings the schema up to date; throws with the failing migration's name if one fails. A database that already
 * holds every migration of this build, and more, is left alone: during a rolling upgrade the new version migrates
 * first (forward-only, additive), and an instance of the old version that restarts must still start. Kysely's
 * Migrator would refuse it ("previously executed migration is missing").
 */
export async function migrateToLatest(db: Db, dir = MIGRATIONS_DIR): Promise<MigrationReport> {
  const shipped = shippedMigrations(dir);
  const applied = new Set(await appliedMigrations(db));
  if (shipped.every((name) => applied.has(name))) {
    const known = new Set(shipped);
    return { applied: [], newer: [...applied].filter((name) => !known.has(name)).sort() };
  }
  const migrator = new Migrator({ db, provider: new SqlFileMigrationProvider(dir) });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName), newer: [] };
}

/** The migrations this build ships with: the names migrateToLatest would apply, in order (read once, at start). */
export function shippedMigrations(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => f.replace(/\.sql$/, ''));
}

/** The names of the migrations applied to the database; none when the migration table does not exist yet. */
export async function appliedMigrations(db: Db): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    return rows.map((r) => r.name);
  } catch (err) {
    // SQLSTATE 42P01 undefined_table: a database no migration has run on.
    if ((err as { code?: unknown }).code === '42P01') return [];
    throw err;
  }
}
