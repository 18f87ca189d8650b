// The command line while the server runs on the embedded database (issue 20; src/cli/remote.ts): PGlite is opened by
// one process, so `sso-admin` sends its command line to the running server over DATA_DIR/admin.sock (mode 0600), and
// prints what the same command prints with the server stopped: the same stdout, messages and exit codes, and the
// same audit record (actor `cli` with the operating-system account).
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { listAuditRecords } from '../../../src/storage/audit-records.js';
import { openDatabase } from '../../../src/storage/database.js';
import { FIXTURES, seedDataFolder } from '../../helpers/app.js';
import { runAdmin, type AdminRun } from '../../helpers/admin-cli.js';
import { collect, spawnServer } from '../../helpers/child-process.js';
import { migratedDataFolder, onServer } from '../../helpers/database.js';
import { UNREACHED_SERVER_ENV } from '../../helpers/listening.js';

if (onServer) {
  t.pass('the local socket is for the embedded database: on PostgreSQL the command line opens the database itself');
} else {
  const dir = await migratedDataFolder(t);
  await seedDataFolder(dir, FIXTURES);
  const env = { DATA_DIR: dir };
  const admin = (args: string[], input?: string) => runAdmin(args, env, { as: 'built', ...(input === undefined ? {} : { input }) });
  /** What an operator reads: stdout, the messages on stderr (not the log lines) and the exit code. */
  const seen = (run: AdminRun) => ({ code: run.code, stdout: run.stdout, message: run.message });

  const server: ChildProcess = await spawnServer({ ...UNREACHED_SERVER_ENV, ...env });
  t.teardown(() => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  });
  const exited = collect(server, 170_000);
  exited.catch(() => {});
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      if (/ ready on /.test(buffered)) resolve();
    });
    server.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${buffered}`)));
  });

  // Each run is a process of its own (a second of CPU): a listing, and a refusal (exit code 1, its message).
  const commands = [
    ['clients', 'list'],
    ['users', 'show', 'nobody'],
  ];
  const running: Array<ReturnType<typeof seen>> = [];
  let disabled: AdminRun;

  t.test('with the server running, the commands run through its socket, which only its account may open', async (t) => {
    t.equal(statSync(path.join(dir, 'admin.sock')).mode & 0o777, 0o600);
    for (const args of commands) running.push(seen(await admin(args)));
    t.match(running[0]!.stdout, /^client_id +/, 'clients list prints its table');
    t.equal(running[1]!.code, 1, 'a refusal is exit code 1');
    t.match(running[1]!.message, /no user "nobody"/);
    disabled = await admin(['users', 'disable', 'alice', '--yes']);
    t.equal(disabled.code, 0);
    t.match(disabled.logs, [{ event: 'admin.user.disabled', actor: os.userInfo().username }], 'the log line reaches the caller');
    const stdin = await admin(['users', 'set-password', 'bob', '--password-stdin'], 'bob-new-password-1234\n');
    t.equal(stdin.code, 0, 'stdin is read from the caller');
    t.notOk(stdin.stderr.includes('bob-new-password-1234'));
  });

  t.test('stopped, the server removes its socket; the same commands print the same', async (t) => {
    server.kill('SIGTERM');
    const stopped = await exited;
    t.equal(stopped.code, 0);
    t.throws(() => statSync(path.join(dir, 'admin.sock')), 'the socket is gone');
    t.match(stopped.stdout, /admin command over the local socket/, "the server's log names each command");
    t.notOk(stopped.stdout.includes('bob-new-password-1234'), 'never a password in its log');
    for (const [i, args] of commands.entries()) t.same(seen(await admin(args)), running[i], args.join(' '));
    const local = await admin(['users', 'disable', 'bob', '--yes']);
    t.same(seen(local), { ...seen(disabled), stdout: disabled.stdout.replaceAll('alice', 'bob') }, 'the change prints the same');
  });

  t.test('the remote change and the local one have the same audit record but for the target', async (t) => {
    const handle = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      const records = (await listAuditRecords(handle.db, {}, 50)).filter((r) => r.event === 'admin.user.disabled');
      t.equal(records.length, 2);
      const [bob, alice] = records.map(({ id: _id, occurred_at: _at, target_id: _target, ...rest }) => rest);
      t.same(alice, bob);
      t.match(alice, { actor_kind: 'cli', actor_id: os.userInfo().username, origin: null, target_type: 'user' });
    } finally {
      await handle.close();
    }
  });
}
