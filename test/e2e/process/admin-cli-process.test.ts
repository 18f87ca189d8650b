// The admin command line as a program: `npm run admin` (the TypeScript source through tsx), the package's `bin`
// (the built dist/cli/admin.js), the keys noun, and a person at a terminal (a pseudo-terminal made by util-linux
// `script`) answering its questions and typing a password without echo.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import argon2 from 'argon2';
import t from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { adminStore, builtAdmin, json, parseRun, runAdmin, type AdminRun } from '../../helpers/admin-cli.js';
import { testConfig } from '../../helpers/app.js';
import { childEnv, collect, PROJECT_DIR } from '../../helpers/child-process.js';

t.test('npm run admin runs the TypeScript source: --help on stdout with exit 0, a bad command line one line and exit 2', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.admin, 'node --import tsx src/cli/admin.ts');
  const help = await runAdmin(['--help'], {}, { as: 'tsx' });
  t.equal(help.code, 0);
  t.match(help.stdout, /^usage: sso-admin <noun> <verb> \[arguments\] \[options\]\n/);
  t.equal(help.stderr, '');
  const bad = await runAdmin(['clients', 'frob'], {}, { as: 'tsx' });
  t.equal(bad.code, 2);
  t.equal(bad.stdout, '');
  t.equal(
    bad.stderr,
    'sso-admin clients: unknown verb "frob" (verbs: list, show, create, update, rotate-secret, delete) (sso-admin clients --help)\n',
  );
});

t.test('the package bin sso-admin is the built dist/cli/admin.js, a script that runs on its own', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  t.same(pkg.bin, { 'sso-admin': 'dist/cli/admin.js' });
  const built = await builtAdmin();
  t.equal(
    path.relative(path.dirname(path.dirname(built)), built),
    path.join('cli', 'admin.js'),
    'where npm run build puts it, under its own folder',
  );
  t.match(readFileSync(built, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  chmodSync(built, 0o755); // as npm does for a bin
  const run = await collect(spawn(built, ['users', '--help'], { cwd: PROJECT_DIR, env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] }));
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^usage: sso-admin users <verb>/);
});

t.test('each list verb refuses a bad command line with exit code 2 and one line, before opening the database', async (t) => {
  const cases: Array<[string[], string]> = [
    [['clients', 'list', '--all'], 'sso-admin clients list: unknown option --all (sso-admin clients list --help)'],
    [['users', 'list', 'alice'], 'sso-admin users list: unexpected argument "alice" (sso-admin users list --help)'],
    [['keys', 'list', '--alg', 'RS256'], 'sso-admin keys list: unknown option --alg (sso-admin keys list --help)'],
    [['sessions', 'list'], 'sso-admin sessions list: missing --user USER (sso-admin sessions list --help)'],
    [['devices', 'list', '--user'], 'sso-admin devices list: option --user needs a value (sso-admin devices list --help)'],
    [['rules', 'list', '--kind', 'network'], 'sso-admin rules list: unknown option --kind (sso-admin rules list --help)'],
  ];
  // DATA_DIR names a file: opening a database there would fail, and differently.
  const runs = await Promise.all(cases.map(([args]) => runAdmin(args, { DATA_DIR: '/dev/null' }, { as: 'built' })));
  runs.forEach((run, i) => {
    t.equal(run.code, 2, cases[i]![0].join(' '));
    t.equal(run.stderr, `${cases[i]![1]}\n`);
    t.equal(run.stdout, '');
  });
});

t.test('keys rotate asks for --yes without a terminal, adds a pending key, and keys list shows it', async (t) => {
  const store = await adminStore(t);
  const refused = await runAdmin(['keys', 'rotate'], store.env);
  t.equal(refused.code, 2);
  t.match(refused.message, 'pass --yes to do it without asking');

  const rotated = await runAdmin(['keys', 'rotate', '--alg', 'ES256', '--delay', '600', '--yes', '--json'], store.env);
  const [key, ...more] = json<Array<{ kid: string; alg: string; activates_at: string }>>(rotated);
  t.same(more, []);
  t.match(key, { kid: /^[A-Za-z0-9_-]{43}$/, alg: 'ES256', activates_at: /Z$/ });
  t.match(
    rotated.logs.find((l) => l.event === 'admin.key.rotated'),
    { kid: key!.kid, alg: 'ES256', activatesAt: key!.activates_at },
  );
  t.match(rotated.message, 'warning: KEYS_ENCRYPTION_SECRET is not set: the private keys are stored in the clear');

  const list = await runAdmin(['keys', 'list', '--json'], store.env);
  const keys = json<Array<{ kid: string; alg: string; state: string; encrypted: boolean }>>(list);
  t.same(
    keys.map((k) => k.alg),
    ['RS256', 'PS256', 'ES256', 'ES256', 'EdDSA'],
    'a first key per algorithm, and the rotated one',
  );
  t.match(
    keys.find((k) => k.kid === key!.kid),
    { state: 'pending', encrypted: false },
  );
});

/** Without the cursor moves readline writes around its prompt. */
// eslint-disable-next-line no-control-regex -- ESC starts the terminal's escape sequences this strips
const withoutEscapes = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

/**
 * Runs sso-admin on a pseudo-terminal (`script`), typing each answer once the output shows its prompt. The terminal
 * merges stdout and stderr, with \r\n line ends.
 */
async function onTerminal(args: string[], env: Record<string, string>, answers: Array<[RegExp, string]>): Promise<AdminRun> {
  const command = [process.execPath, await builtAdmin(), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: PROJECT_DIR,
    env: childEnv({ LOG_LEVEL: 'info', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let seen = '';
  const pending = [...answers];
  child.stdout!.on('data', (chunk: Buffer) => {
    seen += withoutEscapes(chunk.toString('utf8'));
    while (pending.length > 0 && pending[0]![0].test(seen)) {
      const [, answer] = pending.shift()!;
      seen = '';
      child.stdin!.write(answer);
    }
  });
  const run = await collect(child);
  child.stdin!.end();
  return parseRun({ ...run, stdout: withoutEscapes(run.stdout).replace(/\r\n/g, '\n') });
}

t.test(
  'on a terminal a destructive verb asks first: no changes nothing, yes goes ahead',
  { skip: process.platform !== 'linux' && 'needs util-linux script' },
  async (t) => {
    const store = await adminStore(t, { forChildren: true });
    await store.withDb((db) =>
      applySeed(db, new PasswordHasher(testConfig().argon2), {
        clients: [{ client_id: 'app', client_secret: 'app-secret-0123456789', redirect_uris: ['https://app.example/cb'] }],
        users: [],
      }),
    );

    const declined = await onTerminal(['clients', 'delete', 'app'], store.env, [
      [/Delete client "app" and every code and token issued to it\? \[y\/N\] $/, 'n\r'],
    ]);
    t.equal(declined.code, 1, declined.stdout);
    t.match(declined.stdout, 'sso-admin clients delete: not confirmed: nothing was changed');
    t.notMatch(declined.stdout, 'admin.client.deleted');

    const accepted = await onTerminal(['clients', 'delete', 'app'], store.env, [[/\[y\/N\] $/, 'y\r']]);
    t.equal(accepted.code, 0, accepted.stdout);
    t.match(accepted.stdout, 'client "app" deleted');
    t.match(accepted.stdout, '"event":"admin.client.deleted"');
  },
);

t.test(
  'on a terminal set-password asks for the password twice without echoing it',
  { skip: process.platform !== 'linux' && 'needs util-linux script' },
  async (t) => {
    const store = await adminStore(t, { forChildren: true });
    await store.withDb((db) =>
      applySeed(db, new PasswordHasher(testConfig().argon2), { clients: [], users: [{ username: 'alice', password: 'the old password' }] }),
    );
    const typed = 'typed at the terminal';

    const differ = await onTerminal(['users', 'set-password', 'alice'], store.env, [
      [/New password: $/, `${typed}\r`],
      [/Repeat it: $/, 'something else\r'],
    ]);
    t.equal(differ.code, 1, differ.stdout);
    t.match(differ.stdout, 'sso-admin users set-password: the two passwords differ: nothing was changed');

    const set = await onTerminal(['users', 'set-password', 'alice'], store.env, [
      [/New password: $/, `${typed}\r`],
      [/Repeat it: $/, `${typed}\r`],
    ]);
    t.equal(set.code, 0, set.stdout);
    t.match(set.stdout, 'password of "alice" set');
    t.notMatch(set.stdout + differ.stdout, typed, 'never echoed');
    t.match(set.stdout, '"event":"admin.user.password_set"', 'the terminal shows the log line too');

    const row = await store.withDb((db) =>
      db.selectFrom('users').select('password_hash').where('username', '=', 'alice').executeTakeFirstOrThrow(),
    );
    t.ok(await argon2.verify(row.password_hash, typed));
  },
);
