// The server under test: the built dist/server.js in its own node process, started, awaited and stopped by its pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { PROJECT_DIR } from './project.js';

const HOST = '127.0.0.1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback port the kernel says is free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST }, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

export interface ServerProcess {
  readonly pid: number;
  readonly baseUrl: string;
  /** Resolves with the discovery document (or what `readyPath` answers) once it answers; rejects if the process exits first. */
  ready(timeoutMs: number, readyPath?: string): Promise<Record<string, unknown>>;
  /** SIGTERM (the server closes gracefully), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

function getJson(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Builds dist/ as `npm start` does (its prestart step), so that the server runs as it does in production. */
export function buildServer(): void {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: PROJECT_DIR, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

/**
 * package.json's start script (`[NAME=value ...] node <flags> dist/server.js`) split into its environment
 * assignments and node's arguments, so the bench runs what npm start runs.
 */
export function startCommand(
  script = (JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start,
): { env: Record<string, string>; args: string[] } {
  const words = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let word: string | undefined;
  while ((word = words.shift()) !== undefined && /^[A-Z_][A-Z0-9_]*=/.test(word)) {
    const eq = word.indexOf('=');
    env[word.slice(0, eq)] = word.slice(eq + 1);
  }
  if (word !== 'node') throw new Error(`package.json's start script does not run node: ${script}`);
  return { env, args: words };
}

/**
 * What `npm start` runs after building (see buildServer), with any extra node arguments (--cpu-prof) first; `entry`
 * runs another built file with the same flags and settings (the floor server, scripts/bench/floor/).
 */
export function startServer(options: {
  port: number;
  env: NodeJS.ProcessEnv;
  log: fs.FileHandle;
  nodeArgs?: string[];
  entry?: string;
  /** The issuer's base URL when it is not this process's own address (a second instance of one issuer). */
  issuerBaseUrl?: string;
}): ServerProcess {
  const baseUrl = `http://${HOST}:${options.port}`;
  const start = startCommand();
  const args = options.entry === undefined ? start.args : start.args.map((arg) => (arg === 'dist/server.js' ? options.entry! : arg));
  if (options.entry !== undefined && !args.includes(options.entry))
    throw new Error("package.json's start script does not run dist/server.js");
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], {
    cwd: PROJECT_DIR,
    env: { ...options.env, ...start.env, HOST, PORT: String(options.port), BASE_URL: options.issuerBaseUrl ?? baseUrl },
    stdio: ['ignore', options.log.fd, options.log.fd],
  });
  if (child.pid === undefined) throw new Error('could not start dist/server.js');
  const pid = child.pid;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    });
  });

  async function ready(timeoutMs: number, readyPath = '/sso/.well-known/openid-configuration'): Promise<Record<string, unknown>> {
    const url = `${baseUrl}${readyPath}`;
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (exit) throw new Error(`the server exited (code ${exit.code}, signal ${exit.signal}) before it answered ${url}`);
      try {
        const res = await getJson(url);
        if (res.status === 200) return JSON.parse(res.body) as Record<string, unknown>;
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      }
      await sleep(200);
    }
    throw new Error(`the server did not answer ${url} within ${timeoutMs / 1000} s (last: ${last})`);
  }

  async function stop(graceMs = 10_000): Promise<void> {
    if (exit) return;
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(graceMs)]);
    if (exit) return;
    child.kill('SIGKILL');
    await exited;
  }

  return { pid, baseUrl, ready, stop };
}
