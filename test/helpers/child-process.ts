// Runs the project's own entry points (the built server, scripts/*.ts) as child processes with a controlled environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../../src/settings.js';
import { TEST_ENV } from './app.js';

export const PROJECT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every variable loadConfig reads (src/settings.ts); the parent's values never leak into a child. */
const CONFIG_VARIABLES = Object.keys(SETTINGS);

/**
 * The environment for a child: the parent's (PATH, HOME...) without any setting of its own, then the cheap
 * test argon2 parameters, then `extra`. DATABASE_URL is set (empty means PGlite) so that a .env file cannot set it.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [...CONFIG_VARIABLES, 'TEST_DATABASE_URL', 'NODE_OPTIONS']) delete env[name];
  return {
    ...env,
    DATABASE_URL: '',
    LOG_LEVEL: 'info',
    ARGON2_MEMORY_KIB: TEST_ENV.ARGON2_MEMORY_KIB,
    ARGON2_TIME_COST: TEST_ENV.ARGON2_TIME_COST,
    ...extra,
  };
}

/**
 * V8 flags for the test's own short-lived node processes: PGlite's WebAssembly compiled by the baseline compiler only.
 * Optimising it costs a process about a second of CPU that a run of a few seconds never earns back (test/http: a
 * fifth less CPU). Behaviour is the same; the server as deployed (npm start) keeps V8's defaults.
 */
export const TEST_NODE_FLAGS = ['--liftoff-only'];

let built: Promise<string> | undefined;

/**
 * src/ built as `npm run build` builds dist/ (what `npm start` and the package's bin run), once per test process, in
 * a folder of its own beside dist/ so as not to race another test's build (the built code finds migrations/ and
 * node_modules/ one level up, as dist/'s does); removed when the process exits. Its path.
 */
export function builtSource(): Promise<string> {
  built ??= (async () => {
    const outdir = path.join(PROJECT_DIR, `dist-test-${process.pid}`);
    process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
    const build = await runTs('scripts/build.ts', [outdir], {});
    if (build.code !== 0) throw new Error(`the build failed: ${build.stderr}`);
    return outdir;
  })();
  return built;
}

/**
 * The server as `npm start` runs it, `node dist/server.js`, built from this checkout's src/ (builtSource). Plain
 * JavaScript spares each start the TypeScript loader: about 2 s of CPU of the 4.6 s a start on a migrated data
 * folder takes through tsx.
 */
export async function spawnServer(env: Record<string, string>): Promise<ChildProcess> {
  return spawnNode([path.join(await builtSource(), 'server.js')], env);
}

/** The built server (spawnServer) to its end. */
export async function runServer(env: Record<string, string>, timeoutMs?: number): Promise<Finished> {
  return collect(await spawnServer(env), timeoutMs);
}

/** `node --import tsx <script> ...args` in the project folder. */
export function spawnTs(script: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawnNode(['--import', 'tsx', script, ...args], env);
}

/** `node <args>` with the test flags, in the project folder, with `env` over childEnv; stdout and stderr piped. */
function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...TEST_NODE_FLAGS, ...args], {
    cwd: PROJECT_DIR,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Collects a child's output until it exits; kills it (by its pid) after `timeoutMs`. */
export function collect(child: ChildProcess, timeoutMs = 60_000): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`process ${child.pid} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs a script to its end. */
export function runTs(script: string, args: string[], env: Record<string, string>, timeoutMs?: number): Promise<Finished> {
  return collect(spawnTs(script, args, env), timeoutMs);
}
