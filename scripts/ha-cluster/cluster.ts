// Starts and stops a PostgreSQL cluster of a primary and a synchronous standby, managed by Patroni with etcd and
// reached through HAProxy, all on free 127.0.0.1 ports with their files in one temporary folder. Used by
// `npm run ha-cluster` and by test/ha/: every process it starts is remembered by PID and stopped by PID.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { haproxyConfig, patroniConfig, type NodePorts, type Ports } from './config-files.js';

const HOST = '127.0.0.1';
const SCOPE = 'sso-ha';

/** The programs the cluster runs, from the Debian packages patroni, etcd-server and haproxy. */
const PROGRAMS = { patroni: 'patroni', etcd: 'etcd', haproxy: 'haproxy' } as const;

/** Which of the three programs are not on PATH (with their Debian package names). */
export function missingPrograms(): string[] {
  const missing: string[] = [];
  if (!onPath(PROGRAMS.patroni)) missing.push('patroni (package patroni)');
  if (!onPath(PROGRAMS.etcd)) missing.push('etcd (package etcd-server)');
  if (!onPath(PROGRAMS.haproxy)) missing.push('haproxy (package haproxy)');
  if (postgresBinDir() === undefined) missing.push('PostgreSQL server binaries (/usr/lib/postgresql/<version>/bin)');
  return missing;
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && fs.existsSync(path.join(dir, program)));
}

/** Debian's PostgreSQL binaries, the newest version installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

export interface HaNode extends NodePorts {
  patroni: ChildProcess;
}

export interface HaCluster {
  /** The folder holding every data directory, configuration and log. */
  readonly dir: string;
  /** postgres:// URL of HAProxy: always the current primary. */
  readonly databaseUrl: string;
  readonly ports: Ports;
  readonly nodes: readonly HaNode[];
  /** PIDs of what the cluster started, by name. */
  pids(): Record<string, number>;
  /** The node whose Patroni answers 200 on /primary, if one does now. */
  primary(): Promise<HaNode | undefined>;
  /** The PID of a node's postmaster, from its data directory's postmaster.pid. */
  postmasterPid(node: NodePorts): number | undefined;
  /** Waits until a node is primary and another is its synchronous standby, and HAProxy reaches the primary. */
  waitUntilReady(timeoutMs: number): Promise<void>;
  /** Stops everything it started, by PID; removes the folder unless keepDir. */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

export interface HaClusterOptions {
  /** Where the cluster's files go; a new temporary folder if absent. */
  dir?: string;
  pgBinDir?: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** Ports the kernel says are free now, all different. */
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** A port the kernel says is free now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST }, () => {
      const address = server.address();
      server.close(() => (address !== null && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** PostgreSQL refuses to run as root: run as the user postgres then, with the folder handed to it. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Whether `pid` is still a PostgreSQL of `dataDir` (not a stale postmaster.pid whose PID now names another process). */
function isPostmasterOf(pid: number, dataDir: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dataDir);
  } catch {
    return false;
  }
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function httpStatus(url: string): Promise<number> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
  // Read to the end: a connection cut short makes Patroni log a traceback.
  await res.arrayBuffer();
  return res.status;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
async function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

export async function startHaCluster(options: HaClusterOptions = {}): Promise<HaCluster> {
  const log = options.log ?? (() => {});
  const pgBinDir = options.pgBinDir ?? postgresBinDir();
  if (pgBinDir === undefined) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sso-ha-'));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const owner = runAs();
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);

  const [etcdClient, etcdPeer, haproxy, haproxyStats, ...nodeNumbers] = await freePorts(8);
  const ports: Ports = { etcdClient: etcdClient!, etcdPeer: etcdPeer!, haproxy: haproxy!, haproxyStats: haproxyStats! };
  const nodePorts: NodePorts[] = ['node1', 'node2'].map((name, i) => ({
    name,
    postgres: nodeNumbers[2 * i]!,
    rest: nodeNumbers[2 * i + 1]!,
    dataDir: path.join(dir, name),
  }));

  const started: Array<{ name: string; child: ChildProcess }> = [];
  // A last resort when the process exits without stop(): nothing it started outlives it.
  const killAll = () => {
    for (const { child } of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const node of nodePorts) {
      const pid = postmasterPid(node);
      if (pid !== undefined && isPostmasterOf(pid, node.dataDir)) process.kill(pid, 'SIGQUIT');
    }
  };
  process.once('exit', killAll);

  const start = (name: string, program: string, args: string[]): ChildProcess => {
    const logFd = fs.openSync(path.join(dir, `${name}.log`), 'a');
    if (owner) fs.fchownSync(logFd, owner.uid, owner.gid);
    // Its own process group: a Ctrl-C in the terminal reaches the script, which stops everything in order.
    const child = spawn(program, args, {
      cwd: dir,
      env: { ...process.env, HOME: dir },
      stdio: ['ignore', logFd, logFd],
      detached: true,
      ...(owner ?? {}),
    });
    fs.closeSync(logFd);
    child.on('error', (err) => log(`${name}: ${err.message}`));
    started.push({ name, child });
    log(`${name} started (pid ${child.pid}), log in ${path.join(dir, `${name}.log`)}`);
    return child;
  };
  const writeFile = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
    if (owner) fs.chownSync(path.join(dir, name), owner.uid, owner.gid);
  };

  const postmasterPid = (node: NodePorts): number | undefined => {
    try {
      const pid = Number(fs.readFileSync(path.join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  };

  const etcdUrl = `http://${HOST}:${ports.etcdClient}`;
  const peerUrl = `http://${HOST}:${ports.etcdPeer}`;
  const etcd = start('etcd', PROGRAMS.etcd, [
    '--name=ha',
    `--data-dir=${path.join(dir, 'etcd')}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=ha=${peerUrl}`,
    '--initial-cluster-state=new',
    '--log-level=warn',
  ]);

  const nodes: HaNode[] = [];
  const cluster: HaCluster = {
    dir,
    databaseUrl: `postgres://postgres@${HOST}:${ports.haproxy}/postgres`,
    ports,
    nodes,
    pids: () => Object.fromEntries(started.map(({ name, child }) => [name, child.pid ?? 0])),
    async primary() {
      for (const node of nodes) {
        if ((await httpStatus(`http://${HOST}:${node.rest}/primary`).catch(() => 0)) === 200) return node;
      }
      return undefined;
    },
    postmasterPid,
    async waitUntilReady(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const left = () => Math.max(0, deadline - Date.now());
      const primary = await until('a primary', left(), () => cluster.primary());
      await until('a synchronous standby', left(), async () => {
        for (const node of nodes) {
          if (node !== primary && (await httpStatus(`http://${HOST}:${node.rest}/synchronous`)) === 200) return true;
        }
        return undefined;
      });
      await until('HAProxy to reach the primary', left(), async () => {
        const client = new pg.Client({ connectionString: cluster.databaseUrl, connectionTimeoutMillis: 1000 });
        await client.connect();
        try {
          const { rows } = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
          return rows[0]?.recovery === false ? true : undefined;
        } finally {
          await client.end();
        }
      });
    },
    async stop(stopOptions = {}) {
      process.removeListener('exit', killAll);
      const named = (name: string) => started.find((s) => s.name === name)?.child;
      const haproxy = named('haproxy');
      if (haproxy) await terminate(haproxy, 5000);
      // Patroni stops its PostgreSQL on SIGTERM; a postmaster left behind (Patroni killed) gets an immediate shutdown.
      await Promise.all(nodes.map((n) => terminate(n.patroni, 20_000)));
      for (const node of nodes) {
        const pid = postmasterPid(node);
        if (pid !== undefined && isPostmasterOf(pid, node.dataDir)) process.kill(pid, 'SIGQUIT');
      }
      await terminate(etcd, 5000);
      if (!stopOptions.keepDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await until('etcd', 20_000, async () => ((await httpStatus(`${etcdUrl}/health`)) === 200 ? true : undefined));
    if (etcd.exitCode !== null) throw new Error(`etcd exited: see ${dir}/etcd.log`);
    // Both at once: the node that wins etcd's initialize key bootstraps the cluster (initdb), the other copies it.
    for (const node of nodePorts) {
      writeFile(`${node.name}.yml`, patroniConfig({ scope: SCOPE, node, ports, dir, pgBinDir }));
      nodes.push({ ...node, patroni: start(`patroni-${node.name}`, PROGRAMS.patroni, [path.join(dir, `${node.name}.yml`)]) });
    }
    writeFile('haproxy.cfg', haproxyConfig(ports, nodePorts));
    start('haproxy', PROGRAMS.haproxy, ['-db', '-f', path.join(dir, 'haproxy.cfg')]);
    await cluster.waitUntilReady(60_000);
  } catch (err) {
    await cluster.stop({ keepDir: true });
    throw new Error(`the cluster did not start (logs in ${dir}): ${(err as Error).message}`, { cause: err });
  }
  return cluster;
}
