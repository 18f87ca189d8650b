// LISTEN on a channel of the database (issue 38): on PostgreSQL through a client of its own, outside the pool (a
// pooled connection goes back to the pool and its LISTEN with it), reconnecting after the server goes away; on
// PGlite through its one session. `onNotify` is called with the payload of each notification, and with none after
// each (re)connection, since what was notified while no one listened is lost.
import { sql } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import type { Db } from './database.js';

export interface Listening {
  close(): Promise<void>;
}

export type Listen = (channel: string, onNotify: (payload?: string) => void) => Promise<Listening>;

/** The wait before the first reconnection; it doubles up to RECONNECT_MAX_MS. */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/** A channel is a fixed name of ours, quoted as an identifier. */
function channelIdentifier(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  return `"${channel}"`;
}

export function postgresListen(url: string, logger?: Pick<Logger, 'warn'>): Listen {
  return async (channel, onNotify) => {
    const identifier = channelIdentifier(channel);
    let closed = false;
    let client: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    let delay = RECONNECT_MIN_MS;
    const reconnectLater = () => {
      if (closed || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void connect();
      }, delay);
      timer.unref();
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    };
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, keepAlive: true });
      let dropped = false;
      const drop = (err?: Error) => {
        if (dropped) return;
        dropped = true;
        if (client === c) client = undefined;
        if (!closed) logger?.warn({ err: err && { message: err.message }, channel }, 'database listener lost; reconnecting');
        void c.end().catch(() => {});
        reconnectLater();
      };
      c.on('error', drop);
      c.on('end', () => drop());
      c.on('notification', (n) => {
        if (n.channel === channel) onNotify(n.payload);
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${identifier}`);
      } catch (err) {
        drop(err as Error);
        return;
      }
      if (closed) {
        await c.end().catch(() => {});
        return;
      }
      client = c;
      delay = RECONNECT_MIN_MS;
      onNotify();
    };
    await connect();
    return {
      async close() {
        closed = true;
        clearTimeout(timer);
        const c = client;
        client = undefined;
        await c?.end().catch(() => {});
      },
    };
  };
}

/**
 * PGlite's session delivers its own notifications with the answer to the query that committed them. The LISTEN goes
 * through `db` (the dialect's one connection, never inside another caller's transaction, which would undo it on
 * rollback); PGlite hands every notification to the callbacks given to onNotification.
 */
export function pgliteListen(pglite: PGlite, db: Db): Listen {
  return async (channel, onNotify) => {
    const off = pglite.onNotification((name, payload) => {
      if (name === channel) onNotify(payload);
    });
    await sql.raw(`LISTEN ${channelIdentifier(channel)}`).execute(db);
    onNotify();
    return {
      async close() {
        off();
        if (!pglite.closed) await sql.raw(`UNLISTEN ${channelIdentifier(channel)}`).execute(db);
      },
    };
  };
}
