// Whether this instance should be sent traffic: not shutting down, signing keys loaded, the database answering
// within a bound, and no migration this build ships with left unapplied. The answer names the first failing check
// and nothing else (never an error message, which could carry a host name or a query).
import type { Db } from '../storage/database.js';
import { appliedMigrations } from '../storage/migrate.js';
import type { KeyStore } from './keys/keys.js';
import { SIGNING_ALGS } from './keys/signing-algs.js';

/** Set once the process has been asked to stop; readiness fails from then on, so balancers stop routing here. */
export interface Lifecycle {
  shuttingDown: boolean;
}

export type ReadinessCheck = 'shutting_down' | 'signing_keys' | 'database' | 'migrations';

export type Readiness = { ready: true } | { ready: false; failed: ReadinessCheck };

export interface ReadinessOptions {
  db: Db;
  keys: Pick<KeyStore, 'signer'>;
  lifecycle: Lifecycle;
  /** The migrations this build ships with (storage/migrate.ts shippedMigrations). */
  shipped: readonly string[];
  /** How long the database may take to answer before it counts as down. */
  timeoutMs: number;
}

export interface ReadinessProbe {
  check(): Promise<Readiness>;
}

const READY: Readiness = Object.freeze({ ready: true });
const failed = (check: ReadinessCheck): Readiness => ({ ready: false, failed: check });

export function readinessProbe(options: ReadinessOptions): ReadinessProbe {
  const { db, keys, lifecycle, shipped, timeoutMs } = options;
  let running: Promise<Readiness> | undefined;

  const checkDatabase = async (): Promise<Readiness> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const applied = await Promise.race([appliedMigrations(db), timedOut]);
      if (applied === 'timeout') return failed('database');
      const present = new Set(applied);
      // A database ahead of this build (a newer version migrated it) is fine: migrations are forward-only.
      return shipped.every((name) => present.has(name)) ? READY : failed('migrations');
    } catch {
      return failed('database');
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    check() {
      if (lifecycle.shuttingDown) return Promise.resolve(failed('shutting_down'));
      if (!SIGNING_ALGS.every((alg) => hasSigner(keys, alg))) return Promise.resolve(failed('signing_keys'));
      // Probes arriving together share one database round trip.
      running ??= checkDatabase().finally(() => {
        running = undefined;
      });
      return running.then((result) => (lifecycle.shuttingDown ? failed('shutting_down') : result));
    },
  };
}

function hasSigner(keys: Pick<KeyStore, 'signer'>, alg: (typeof SIGNING_ALGS)[number]): boolean {
  try {
    keys.signer(alg);
    return true;
  } catch {
    return false;
  }
}
