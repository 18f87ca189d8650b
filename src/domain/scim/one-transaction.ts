// One SCIM request, one transaction: a PUT or PATCH may rename a user, change their address and disable them, each
// through its own admin domain function (src/domain/admin/), each of which opens its own transaction. Kysely has no
// nested transactions, so the functions are given a database whose transaction() runs inside the one already open:
// all of the request commits, with every audit record and webhook event, or none of it does.
// test/http/scim/protocol.test.ts ('a refused request changes nothing') fails if a Kysely upgrade breaks this.
import type { Db } from '../../storage/database.js';

/**
 * `trx` as a Db whose `transaction().execute(fn)` calls `fn` with itself. Everything else is the transaction's own
 * (its methods bound to it: Kysely keeps its state in private fields). Only execute() is offered: a caller that
 * wants an isolation level of its own fails loudly rather than silently running with the outer one's.
 */
export function enlisted(trx: Db): Db {
  const proxy: Db = new Proxy(trx, {
    get(target, prop) {
      if (prop === 'transaction') return () => ({ execute: <T>(fn: (db: Db) => Promise<T>) => fn(proxy) });
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return proxy;
}

/** Runs `fn` in one transaction; `ctx.db` inside is that transaction, enlisted (see above). */
export function inOneTransaction<C extends { db: Db }, T>(ctx: C, fn: (tctx: C) => Promise<T>): Promise<T> {
  return ctx.db.transaction().execute((trx: Db) => fn({ ...ctx, db: enlisted(trx) }));
}
