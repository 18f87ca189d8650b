// `npm start` as the README gives it: builds dist/ (prestart) and serves a working issuer from plain JavaScript
// on the embedded database, without the TypeScript loader in the serving process.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { childEnv, PROJECT_DIR } from '../../helpers/child-process.js';
import { forwardedPort, reportedPort } from '../../helpers/listening.js';

t.test('npm start builds dist/ and serves discovery from dist/server.js', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sso-npm-start-'));
  // The server listens on port 0; BASE_URL names a port held here, forwarded to the one the server reports.
  const forwarded = await forwardedPort(t);
  const baseUrl = `http://127.0.0.1:${forwarded.port}`;
  // Its own process group, so that npm, its shell and the server it starts can all be stopped by the group's id.
  const npm = spawn('npm', ['start'], {
    cwd: PROJECT_DIR,
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', BASE_URL: baseUrl, DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let onListening!: () => void;
  const listened = new Promise<void>((resolve) => (onListening = resolve));
  npm.stdout!.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    const reported = reportedPort(output);
    if (reported === undefined) return;
    forwarded.forwardTo(reported);
    onListening();
  });
  npm.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  t.teardown(async () => {
    try {
      process.kill(-npm.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Asked once the server says it listens: a connection to the held port before then is reset, and fetch's pool,
  // after such a reset, has been seen to keep the next request pending with no connection at all (until tap's
  // timeout). Each attempt is bounded all the same.
  const deadline = Date.now() + 60_000;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    listened,
    exited.then(() => Promise.reject(new Error(`npm start exited before it listened:\n${output}`))),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`npm start did not listen within 60 s:\n${output}`)), 60_000);
    }),
  ]).finally(() => clearTimeout(timer));
  let discovery: Record<string, unknown> | undefined;
  while (discovery === undefined) {
    if (Date.now() > deadline) throw new Error(`npm start did not serve discovery within 60 s:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/sso/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) discovery = (await res.json()) as Record<string, unknown>;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  t.equal(discovery.issuer, `${baseUrl}/sso`);
  t.ok(readFileSync(path.join(PROJECT_DIR, 'dist/server.js'), 'utf8').length > 0, 'dist/server.js was built');

  // The process listening on the port runs the built JavaScript, not the TypeScript source through tsx.
  const listening = await fetch(`${baseUrl}/sso/jwks`);
  t.equal(listening.status, 200);
  const serverPid = Number(/"pid":(\d+)/.exec(output)?.[1]);
  t.ok(serverPid > 0, 'the server logged its pid');
  const cmdline = readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0');
  t.ok(cmdline.includes('dist/server.js'), `the server runs dist/server.js (${cmdline.join(' ')})`);
  t.notOk(
    cmdline.some((arg) => arg.includes('tsx')),
    'without the TypeScript loader',
  );
});
