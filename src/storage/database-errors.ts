// Tells a lost or refused database connection, and text PostgreSQL cannot store, apart from every other database error.

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// PostgreSQL SQLSTATE: class 08 connection exceptions, 57P01-57P03 shutdown / cannot connect now, 53300 too many connections,
// 25006 read_only_sql_transaction: a write reached a server still in recovery. During a failover Patroni's /primary answers
// 200 as soon as its node holds the leader lock, a moment before PostgreSQL ends recovery, so HAProxy routes writes there
// for that moment (seen by test/ha/failover.test.ts).
const SQLSTATE_UNAVAILABLE = /^(08...|57P0[123]|53300|25006)$/;
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end on the pool',
];

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE_UNAVAILABLE.test(code))) return true;
    if (PG_MESSAGES.some((m) => e instanceof Error && e.message.includes(m))) return true;
  }
  return false;
}

/** SQLSTATE 23505: a unique constraint rejected the write. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === '23505';
}

/**
 * SQLSTATE 22021 (a NUL byte in a text value) or 22P05 (\u0000 in JSON stored as jsonb): a value from the
 * request that PostgreSQL refuses to store. Parameters are checked at parsing; this catches every other path in.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return code === '22021' || code === '22P05';
}
