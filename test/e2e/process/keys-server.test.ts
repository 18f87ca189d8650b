// The server's start as an operator sees it regarding the signing keys: the warning without KEYS_ENCRYPTION_SECRET,
// clear keys encrypted with one, and a wrong one refused by name; the built server (as npm start runs it) in a child
// process.
import type { ChildProcess } from 'node:child_process';
import t, { type Test } from 'tap';
import { collect, runServer, spawnServer } from '../../helpers/child-process.js';
import { keyStore, KEYS_SECRET, rotateKeys, WRONG_KEYS_SECRET } from '../../helpers/keys.js';
import { UNREACHED_SERVER_ENV } from '../../helpers/listening.js';

interface Started {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
}

/** Starts the built server and resolves once it is ready; killed by its pid in teardown. */
async function startServer(t: Test, env: Record<string, string>): Promise<Started> {
  const child = await spawnServer({ ...UNREACHED_SERVER_ENV, ...env });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const entry = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
        buffered = buffered.slice(nl + 1);
        lines.push(entry);
        if (typeof entry.msg === 'string' && entry.msg.includes(' ready on ')) resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${JSON.stringify(lines)}`)));
  });
  return { child, lines };
}

async function stop(server: Started): Promise<number | null> {
  const done = collect(server.child);
  server.child.kill('SIGTERM');
  return (await done).code;
}

const clearWarnings = (lines: Array<Record<string, unknown>>) =>
  lines.filter((l) => l.level === 40 && typeof l.msg === 'string' && l.msg.startsWith('KEYS_ENCRYPTION_SECRET is not set'));

t.test('the server warns once at start when KEYS_ENCRYPTION_SECRET is not set, and not when it is', async (t) => {
  const env = await keyStore(t);
  const clear = await startServer(t, env);
  t.equal(clearWarnings(clear.lines).length, 1, 'one warning');
  t.match(clearWarnings(clear.lines)[0], { level: 40, msg: /IN THE CLEAR/ });
  t.equal(await stop(clear), 0);

  const encrypted = await startServer(t, { ...env, KEYS_ENCRYPTION_SECRET: KEYS_SECRET });
  t.same(clearWarnings(encrypted.lines), []);
  t.match(
    encrypted.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('clear private signing keys encrypted')),
    { level: 30, count: 4 },
  );
  t.notMatch(JSON.stringify(encrypted.lines), KEYS_SECRET, 'the secret is not logged');
  t.equal(await stop(encrypted), 0);
});

t.test('a wrong KEYS_ENCRYPTION_SECRET stops the server with a message naming the variable, never the secret', async (t) => {
  const env = await keyStore(t);
  t.equal((await rotateKeys(['--alg', 'EdDSA', '--delay', '0'], { ...env, KEYS_ENCRYPTION_SECRET: KEYS_SECRET })).code, 0);
  const run = await runServer({
    ...env,
    ...UNREACHED_SERVER_ENV,
    KEYS_ENCRYPTION_SECRET: WRONG_KEYS_SECRET,
  });
  t.equal(run.code, 1);
  const fatal = run.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message: string; type: string } })
    .find((l) => l.level === 60);
  t.match(fatal, {
    msg: 'could not start',
    err: {
      type: 'KeyEncryptionError',
      message: 'KEYS_ENCRYPTION_SECRET does not decrypt the signing keys in the database: it is not the secret they were encrypted with',
    },
  });
  t.notMatch(run.stdout + run.stderr, WRONG_KEYS_SECRET);
  t.notMatch(run.stdout + run.stderr, KEYS_SECRET);
});
