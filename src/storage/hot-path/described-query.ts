// A named prepared statement run without asking PostgreSQL to describe its result again.
//
// pg sends Bind, Describe and Execute for every run of a prepared statement, and PostgreSQL answers the Describe
// with the name, table, type and format of every result column; pg parses that message and builds a field object per
// column before it reads the one row. A statement's result columns cannot change while it stays prepared on a
// connection (PostgreSQL refuses the run instead: "cached plan must not change result type", which
// preparing-client.ts replans), so the description PostgreSQL gave on the first run is kept for that connection and
// handed to pg in place of the Describe on every later run: Bind, Execute, Sync, as other drivers (pgx, JDBC) do.
import pg from 'pg';

/** The result description each named statement got on one connection (RowDescription's fields). */
export type Descriptions = Map<string, readonly unknown[]>;

/** What answers the connection's next Describe instead of PostgreSQL, while a query that knows its result prepares. */
const ANSWER = Symbol('described-query answer');

interface PgConnection {
  describe(msg: { type: 'P' | 'S'; name: string }): void;
  parsedStatements: Record<string, string | undefined>;
  [ANSWER]?: (() => void) | undefined;
}

/**
 * Gives the connection, once, a describe that a query may answer from memory. Installed once and never removed:
 * a property added and deleted on every run would turn the connection into a slow dictionary object for V8.
 */
function answerable(connection: PgConnection): void {
  if (Object.hasOwn(connection, ANSWER)) return;
  const describe = connection.describe;
  connection[ANSWER] = undefined;
  connection.describe = function (this: PgConnection, msg) {
    const answer = this[ANSWER];
    if (answer) answer();
    else describe.call(this, msg);
  };
}

interface QueryInternals {
  name?: string;
  prepare(connection: PgConnection): void;
  handleRowDescription(msg: { fields: readonly unknown[] }): void;
}

const base = pg.Query.prototype as unknown as QueryInternals;

export class DescribedQuery extends pg.Query {
  constructor(
    config: pg.QueryConfig,
    private readonly descriptions: Descriptions,
    callback: (err: Error | undefined, result: pg.QueryResult) => void,
  ) {
    super(config, callback as never);
  }

  /** pg's own prepare (Parse when new, Bind, Describe, Execute), its Describe answered from memory once known. */
  prepare(connection: PgConnection): void {
    const name = (this as unknown as QueryInternals).name;
    const fields = name === undefined || connection.parsedStatements[name] === undefined ? undefined : this.descriptions.get(name);
    if (fields === undefined) return base.prepare.call(this, connection);
    answerable(connection);
    connection[ANSWER] = () => base.handleRowDescription.call(this, { fields });
    try {
      base.prepare.call(this, connection);
    } finally {
      connection[ANSWER] = undefined;
    }
  }

  /** The description PostgreSQL sent, remembered for the statement's later runs on this connection. */
  handleRowDescription(msg: { fields: readonly unknown[] }): void {
    const name = (this as unknown as QueryInternals).name;
    if (name !== undefined) this.descriptions.set(name, msg.fields);
    base.handleRowDescription.call(this, msg);
  }
}
