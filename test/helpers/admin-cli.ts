// The admin command line as an operator runs it (`npm run admin --`, src/cli/admin.ts), in child processes on a
// database of the test's own, and the rows its tests start from (sessions, devices, tokens) written beside it.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { sha256 } from '../../src/domain/secrets.js';
import { openDatabase } from '../../src/storage/database.js';
import type { Db } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { childEnv, collect, PROJECT_DIR, runTs, TEST_NODE_FLAGS, type Finished } from './child-process.js';
import { createTestDatabase, onServer } from './database.js';

export interface AdminStore {
  /** Points a child process at the store. */
  env: Record<string, string>;
  /** Runs `fn` on the store from this process (on PGlite, while no child has it open). */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

let template: Promise<string> | undefined;

/** A migrated PGlite data folder, made once per test process: copying it is much cheaper than creating one. */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-admin-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const handle = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
    return dir;
  })();
  return template;
}

/** A migrated database of this test's own: a PGlite data folder, or a database on TEST_DATABASE_URL's server. */
export async function adminStore(t: Test): Promise<AdminStore> {
  if (onServer) {
    const database = await createTestDatabase();
    t.teardown(() => database.drop());
    return { env: { DATABASE_URL: database.url! }, withDb: (fn) => fn(database.handle.db) };
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-admin-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.cp(await pgliteTemplate(), dir, { recursive: true });
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

let built: Promise<string> | undefined;

/**
 * src/ built as `npm run build` builds dist/ (the package's `bin` is dist/cli/admin.js), once per test process, in a
 * folder of its own so as not to race another test's build; the path of its admin.js. Running the CLI as plain
 * JavaScript also spares each run the TypeScript loader's start-up.
 */
export function builtAdmin(): Promise<string> {
  built ??= (async () => {
    // Beside dist/: the built code finds migrations/ and node_modules/ one level up, as dist/'s does.
    const outdir = path.join(PROJECT_DIR, `dist-test-${process.pid}`);
    process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
    const build = await runTs('scripts/build.ts', [outdir], {});
    if (build.code !== 0) throw new Error(`the build failed: ${build.stderr}`);
    return path.join(outdir, 'cli', 'admin.js');
  })();
  return built;
}

export interface RunOptions {
  /** Standard input; without it stdin is /dev/null (not a terminal). */
  input?: string;
  /** `npm run admin` runs src/cli/admin.ts through tsx; by default the built JavaScript runs. */
  viaTsx?: boolean;
}

/** `sso-admin ...args` with `env`, to its end. */
export async function runAdmin(args: string[], env: Record<string, string>, options: RunOptions = {}): Promise<AdminRun> {
  const entry = options.viaTsx ? ['--import', 'tsx', 'src/cli/admin.ts'] : [await builtAdmin()];
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, ...entry, ...args], {
    cwd: PROJECT_DIR,
    env: childEnv({ LOG_LEVEL: 'info', ...env }),
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.input);
  return parseRun(await collect(child));
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
