// A pg Client that runs every data statement as a named prepared statement, so that PostgreSQL parses and
// plans each distinct statement once per connection instead of on every execution.
//
// The hot paths are a handful of fixed statements (a code issued and consumed, a token looked up) whose CTEs
// cost more to plan than to run. Kysely sends them as text with parameters; this client gives each distinct
// text a name, and pg sends Parse only the first time a connection sees it.
import pg from 'pg';
import { DescribedQuery, type Descriptions } from './described-query.js';

/** Distinct statements named per process; any further one runs unnamed (a statement with a varying IN list, say). */
const MAX_NAMED_STATEMENTS = 500;
const names = new Map<string, string>();

/** Only plain data statements: utility commands (BEGIN, DDL, SET...) gain nothing from a plan. */
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS && DATA_STATEMENT.test(text)) {
    name = `kysely_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed since it was planned
 * ("cached plan must not change result type", e.g. after a migration added a column to a `SELECT *`
 * table while this process ran). Such a statement is dropped from the connection and run again, planned afresh.
 */
function isStalePlan(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));
}

interface ConnectionInternals {
  parsedStatements: Record<string, string>;
}

export class PreparingClient extends pg.Client {
  /** What each named statement returns, as PostgreSQL described it on this connection (described-query.ts). */
  private readonly descriptions: Descriptions = new Map();

  // pg's query() has many overloads; Kysely calls query(text, values) and expects a promise.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) && args.length === 2 ? statementName(text) : undefined;
    if (name === undefined) return (super.query as (...a: unknown[]) => never)(...args);
    const run = () =>
      new Promise<pg.QueryResult>((resolve, reject) => {
        const config = { text: text as string, values: values as unknown[], name };
        super.query(new DescribedQuery(config, this.descriptions, (err, result) => (err ? reject(err) : resolve(result))));
      });
    return run().catch(async (err: unknown) => {
      if (!isStalePlan(err)) throw err;
      await super.query(`DEALLOCATE ${name}`);
      delete (this as unknown as { connection: ConnectionInternals }).connection.parsedStatements[name];
      this.descriptions.delete(name);
      return run();
    }) as never;
  }
}
