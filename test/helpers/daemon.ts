// A long-running program the tests start themselves (slapd, Apache, PHP's server...): spawned with its own arguments,
// environment and folder, ready once it listens on its ports (the kernel's socket table says the process itself does)
// or once it prints a given line, stopped by its PID (SIGTERM to its process group, then SIGKILL after a grace) and its output kept for
// the failure message. Programs that bind their port themselves get it from onFreePort, which tries another port if
// the program exits because the one it was given is taken.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface DaemonOptions {
  /** What the messages call it: 'slapd', 'Apache (mod_auth_mellon)'. */
  name: string;
  command: string;
  args: readonly string[];
  /** The whole environment of the child (default: the parent's). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Ready once the process listens on every one of these loopback TCP ports, or once its output has a matching line. */
  ready: { ports: readonly number[] } | { line: RegExp };
  /** How long it may take to become ready (default 10 s). */
  readyTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL (default 3 s). */
  graceMs?: number;
}

export interface Daemon {
  readonly pid: number;
  /** What it printed so far, stdout and stderr interleaved (the last 64 KiB). */
  output(): string;
  /** Resolves when it has exited (with its code, or null after a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, SIGKILL after the grace; resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** The program exited before it was ready: with a port of its own choosing, the port was probably taken. */
export class DaemonExitedEarly extends Error {
  constructor(
    name: string,
    readonly code: number | null,
    readonly output: string,
  ) {
    super(`${name} exited (${code ?? 'signal'}) before it was ready:\n${output.trim()}`);
  }
}

const KEPT_OUTPUT = 64 * 1024;

/** The loopback TCP ports process `pid` listens on, from the kernel's socket table (Linux /proc). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    let target = '';
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address is ADDR:PORT in hex; st 0A is LISTEN; the inode is the tenth field.
    if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9]!)) ports.push(parseInt(fields[1]!.split(':')[1]!, 16));
  }
  return ports.sort((a, b) => a - b);
}

/** Starts the program and resolves once it is ready; rejects (having stopped it) if it exits first or takes too long. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const child = spawn(options.command, [...options.args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, which stop() signals as a whole: PHP's built-in server leaves its workers running
    // when it is stopped alone (and signals its whole group when it stops, which would otherwise be the test's);
    // Apache's piped logger holds the output open after Apache has gone.
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > KEPT_OUTPUT) output = output.slice(-KEPT_OUTPUT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const spawned = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', (err) => {
      keep(Buffer.from(String(err)));
      resolve(false);
    });
  });
  if (!spawned || child.pid === undefined) throw new DaemonExitedEarly(options.name, null, output);
  const pid = child.pid;
  /** Signals the program's process group: the program and what it started (workers, loggers), nothing else. */
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group has gone already.
    }
  };
  // A test process that dies without its teardown still takes the program with it.
  const killOnExit = () => signal('SIGKILL');
  process.once('exit', killOnExit);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        signal('SIGTERM');
        const grace = setTimeout(() => signal('SIGKILL'), options.graceMs ?? 3000);
        await exited;
        clearTimeout(grace);
      }
      // What the program started and left behind (a worker, a logger) goes with it.
      signal('SIGKILL');
      process.removeListener('exit', killOnExit);
    })();
    return stopping;
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
  const ready = options.ready;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const code = await exited;
      signal('SIGKILL');
      process.removeListener('exit', killOnExit);
      throw new DaemonExitedEarly(options.name, code, output);
    }
    const isReady =
      'ports' in ready
        ? ((listening) => ready.ports.every((port) => listening.includes(port)))(listeningPorts(pid))
        : ready.line.test(output);
    if (isReady) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${options.name} was not ready in time:\n${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { pid, output: () => output, exited, stop };
}

/**
 * The first port the kernel hands out for port 0 (net.ipv4.ip_local_port_range): ports for programs that bind their
 * own are drawn below it, where no test's port-0 listener lands.
 */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * For a program that binds its port itself (a port reserved and released for it could be taken in between): calls
 * `start` with a random port below the ephemeral range, and again with another if it threw DaemonExitedEarly (the
 * port was taken), up to `attempts` times.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 8): Promise<T> {
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await start(randomInt(10_000, ephemeralStart() - 1));
    } catch (err) {
      if (!(err instanceof DaemonExitedEarly)) throw err;
      last = err;
    }
  }
  throw last;
}
