// The admin command line as an operator runs it (`npm run admin --`, src/cli/admin.ts) on a database of the test's
// own, and the rows its tests start from (sessions, devices, tokens) written beside it.
//
// A run is the command line's own runAdmin with the nouns src/cli/admin.ts gives it, in this process, its stdout and
// stderr captured: a child process would cost a second of start-up (node, then PGlite loading the data folder) for
// every run. What only a process shows (the package's bin, `npm run admin`, a terminal, the exit status) is tested
// in admin-cli-process.test.ts and admin-npm-script.test.ts, with runs in child processes.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import pino from 'pino';
import type { Test } from 'tap';
import { actor, adminContext, runAdmin as runCommandLine } from '../../src/cli/command.js';
import { NOUNS } from '../../src/cli/nouns/index.js';
import { stdoutOutput } from '../../src/cli/output.js';
import { processTerminal } from '../../src/cli/terminal.js';
import { loadConfig } from '../../src/config.js';
import { sha256 } from '../../src/domain/secrets.js';
import { loggerOptions } from '../../src/logger.js';
import { openMigratedDatabase } from '../../src/runtime.js';
import { openDatabase } from '../../src/storage/database.js';
import type { Db } from '../../src/storage/database.js';
import { builtSource, childEnv, collect, PROJECT_DIR, TEST_NODE_FLAGS, type Finished } from './child-process.js';
import { createTestDatabase, migratedDataFolder, onServer } from './database.js';

/** The variable in a store's env that names its open database, for runs in this process; a child ignores it. */
const STORE = 'TEST_ADMIN_STORE';
/** The open databases of this process's stores, by the id in their env. */
const openStores = new Map<string, Db>();

export interface AdminStore {
  /** Points a child process at the store. */
  env: Record<string, string>;
  /** Runs `fn` on the store from this process (on PGlite, while no child has it open). */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

/**
 * A migrated database of this test's own. Runs in this process use it as it is; with `forChildren`, child processes
 * can open it too: a PGlite data folder (opened by one process at a time), or a database on TEST_DATABASE_URL's
 * server.
 */
export async function adminStore(t: Test, options: { forChildren?: boolean } = {}): Promise<AdminStore> {
  if (onServer || !options.forChildren) {
    const database = await createTestDatabase();
    const id = randomUUID();
    openStores.set(id, database.handle.db);
    t.teardown(async () => {
      openStores.delete(id);
      await database.drop();
    });
    // On PGlite the database is in this process's memory: a DATA_DIR no child can open keeps a stray one off ./data.
    const where: Record<string, string> = database.url ? { DATABASE_URL: database.url } : { DATA_DIR: '/dev/null/in-process-only' };
    return { env: { ...where, [STORE]: id }, withDb: (fn) => fn(database.handle.db) };
  }
  const dir = await migratedDataFolder(t);
  return {
    env: { DATA_DIR: dir },
    async withDb(fn) {
      const handle = await openDatabase({ dataDir: dir, poolMax: 1 });
      try {
        return await fn(handle.db);
      } finally {
        await handle.close();
      }
    },
  };
}

export interface AdminRun extends Finished {
  /** The JSON log lines of stderr. */
  logs: Array<Record<string, unknown>>;
  /** stderr without the log lines: what the operator reads. */
  message: string;
}

export function parseRun(run: Finished): AdminRun {
  const logs: Array<Record<string, unknown>> = [];
  const other: string[] = [];
  for (const line of run.stderr.split('\n')) {
    if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
    else if (line !== '') other.push(line);
  }
  return { ...run, logs, message: other.join('\n') };
}

/** The package's bin, dist/cli/admin.js, as built from this checkout (builtSource). */
export async function builtAdmin(): Promise<string> {
  return path.join(await builtSource(), 'cli', 'admin.js');
}

export interface RunOptions {
  /** Standard input; without it stdin is empty (and not a terminal). */
  input?: string;
  /**
   * Where it runs: in this process (the default); 'built': the built JavaScript (the package's bin) in a child
   * process; 'tsx': `npm run admin`'s command, src/cli/admin.ts through tsx, in a child process.
   */
  as?: 'in-process' | 'built' | 'tsx';
}

/** `sso-admin ...args` with `env` (settings as the environment would give them), to its end. */
export async function runAdmin(args: string[], env: Record<string, string>, options: RunOptions = {}): Promise<AdminRun> {
  const as = options.as ?? 'in-process';
  if (as === 'in-process') return runInProcess(args, env, options.input ?? '');
  const entry = as === 'tsx' ? ['--import', 'tsx', 'src/cli/admin.ts'] : [await builtAdmin()];
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, ...entry, ...args], {
    cwd: PROJECT_DIR,
    env: childEnv({ LOG_LEVEL: 'info', ...env }),
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.input);
  return parseRun(await collect(child));
}

/** src/cli/admin.ts's wiring with this process's streams replaced by strings, on the store's open database. */
async function runInProcess(args: string[], env: Record<string, string>, input: string): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const stderrStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stderr += chunk.toString('utf8');
      done();
    },
  });
  const code = await runCommandLine(NOUNS, args, {
    terminal: processTerminal(Readable.from([input]) as unknown as NodeJS.ReadStream, stderrStream as unknown as NodeJS.WriteStream),
    out: stdoutOutput((text) => (stdout += text)),
    error: (line) => (stderr += `${line}\n`),
    async open() {
      const config = loadConfig({ ...childEnv({}), ...env } as Record<string, string>);
      const logger = pino(loggerOptions(config.logLevel), { write: (line: string) => (stderr += line) }).child({ actor: actor() });
      const shared = openStores.get(env[STORE] ?? '');
      const database = shared ? { db: shared, close: async () => {} } : await openMigratedDatabase(config, logger);
      return { config, logger, ctx: adminContext(config, logger, database.db), close: () => database.close() };
    },
  });
  return parseRun({ code, signal: null, stdout, stderr });
}

/** The JSON a successful `--json` run printed. */
export function json<T = Record<string, unknown>>(run: AdminRun): T {
  if (run.code !== 0) throw new Error(`exit code ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** The `event` fields of a run's log lines. */
export const events = (run: AdminRun) => run.logs.map((l) => l.event).filter((e) => e !== undefined);

export interface SignedInUser {
  userId: string;
  deviceIds: string[];
  sids: string[];
}

/**
 * A user signed in to `clientId` from `devices` devices (one live session each), with a code, an access token and a
 * refresh token issued through each session: what disabling, revoking and deleting have to undo.
 */
export async function signedInUser(db: Db, username: string, clientId: string, devices: number): Promise<SignedInUser> {
  const now = new Date();
  const later = new Date(now.getTime() + 3_600_000);
  const userId = randomUUID();
  await db
    .insertInto('users')
    .values({
      id: userId,
      username,
      password_hash: 'not-a-hash',
      email: `${username}@example.com`,
      email_verified: true,
      claims: '{}',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const signedIn: SignedInUser = { userId, deviceIds: [], sids: [] };
  for (let i = 0; i < devices; i += 1) {
    const device = await db
      .insertInto('devices')
      .values({
        user_id: userId,
        cookie_hash: sha256(randomUUID()),
        fingerprint: `fp-${i}`,
        network_key: `net-${i}`,
        label: `Browser ${i + 1} on Linux`,
        first_seen_at: now,
        last_seen_at: now,
        sign_in_count: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sid = `sid-${username}-${i}`;
    await db
      .insertInto('sessions')
      .values({
        id_hash: sha256(randomUUID()),
        sid,
        user_id: userId,
        auth_time: now,
        created_at: now,
        expires_at: later,
        device_id: device.id,
      })
      .execute();
    await db.insertInto('session_clients').values({ sid, client_id: clientId, created_at: now }).execute();
    const codeHash = sha256(randomUUID());
    await db
      .insertInto('authorization_codes')
      .values({
        code_hash: codeHash,
        client_id: clientId,
        user_id: userId,
        redirect_uri: 'https://app.example/cb',
        redirect_uri_in_request: true,
        scope: 'openid',
        auth_time: now,
        issued_at: now,
        expires_at: later,
        sid,
      })
      .execute();
    const familyId = randomUUID();
    await db
      .insertInto('refresh_tokens')
      .values({
        token_hash: sha256(randomUUID()),
        family_id: familyId,
        client_id: clientId,
        user_id: userId,
        scope: 'openid offline_access',
        auth_time: now,
        issued_at: now,
        expires_at: later,
        sid,
      })
      .execute();
    await db
      .insertInto('access_tokens')
      .values({
        token_hash: sha256(randomUUID()),
        client_id: clientId,
        user_id: userId,
        scope: 'openid',
        issued_at: now,
        expires_at: later,
        refresh_family_id: familyId,
      })
      .execute();
    signedIn.deviceIds.push(device.id);
    signedIn.sids.push(sid);
  }
  return signedIn;
}

/** What is still usable of a user's: live sessions, unredeemed codes, unrevoked tokens, queued logouts for them. */
export async function liveState(db: Db, userId: string) {
  const now = new Date();
  const count = async (q: Promise<Array<unknown>>) => (await q).length;
  return {
    sessions: await count(
      db
        .selectFrom('sessions')
        .select('sid')
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .execute(),
    ),
    codes: await count(
      db.selectFrom('authorization_codes').select('code_hash').where('user_id', '=', userId).where('consumed_at', 'is', null).execute(),
    ),
    refreshTokens: await count(
      db.selectFrom('refresh_tokens').select('token_hash').where('user_id', '=', userId).where('revoked_at', 'is', null).execute(),
    ),
    accessTokens: await count(
      db.selectFrom('access_tokens').select('token_hash').where('user_id', '=', userId).where('revoked_at', 'is', null).execute(),
    ),
    queuedLogouts: await count(db.selectFrom('backchannel_logouts').select('id').where('sub', '=', userId).execute()),
  };
}
