// npm run ha-cluster: a primary and a synchronous standby under Patroni and etcd, behind HAProxy, on 127.0.0.1.
// `start` runs in the foreground and stops everything on Ctrl-C, SIGTERM or `npm run ha-cluster -- stop`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TIMEOUTS } from './config-files.js';
import { missingPrograms, startHaCluster } from './cluster.js';

const USAGE = `usage: npm run ha-cluster -- start [--dir DIR] | stop

start  starts etcd, two Patroni nodes (PostgreSQL, synchronous replication) and HAProxy on free 127.0.0.1 ports,
       prints the DATABASE_URL to give the provider and the PIDs, and stays in the foreground; Ctrl-C stops it all.
stop   asks a running 'start' (its PID is in ${stateFile()}) to stop everything it started.
`;

function stateFile(): string {
  return path.join(os.tmpdir(), 'sso-ha-cluster.json');
}

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'stop' && rest.length === 0) return stop();
  if (command === 'start' && (rest.length === 0 || (rest.length === 2 && rest[0] === '--dir'))) return start(rest[1]);
  (command === '--help' || command === '-h' ? process.stdout : process.stderr).write(USAGE);
  return command === '--help' || command === '-h' ? 0 : 2;
}

function stop(): number {
  let pid: number;
  try {
    pid = (JSON.parse(fs.readFileSync(stateFile(), 'utf8')) as { pid: number }).pid;
  } catch {
    process.stderr.write(`no cluster is running (no ${stateFile()})\n`);
    return 1;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    process.stderr.write(`process ${pid} is gone; removing ${stateFile()}\n`);
    fs.rmSync(stateFile(), { force: true });
    return 1;
  }
  process.stdout.write(`asked process ${pid} to stop the cluster\n`);
  return 0;
}

async function start(dir: string | undefined): Promise<number> {
  const missing = missingPrograms();
  if (missing.length > 0) {
    process.stderr.write(`missing: ${missing.join(', ')}\ninstall: apt-get install patroni etcd-server haproxy\n`);
    return 1;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const cluster = await startHaCluster({ dir, log });
  fs.writeFileSync(stateFile(), JSON.stringify({ pid: process.pid, dir: cluster.dir, pids: cluster.pids() }));
  const primary = await cluster.primary();
  process.stdout.write(
    [
      `DATABASE_URL=${cluster.databaseUrl}`,
      `primary: ${primary?.name ?? 'none'}; HAProxy stats: http://127.0.0.1:${cluster.ports.haproxyStats}/`,
      ...cluster.nodes.map((n) => `${n.name}: PostgreSQL 127.0.0.1:${n.postgres}, Patroni REST 127.0.0.1:${n.rest}, data ${n.dataDir}`),
      `etcd: 127.0.0.1:${cluster.ports.etcdClient}; Patroni ${Object.entries(TIMEOUTS)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
      `PIDs: ${Object.entries(cluster.pids())
        .map(([name, pid]) => `${name}=${pid}`)
        .join(' ')}`,
      'Ctrl-C (or npm run ha-cluster -- stop) stops it all.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log('stopping');
  await cluster.stop();
  fs.rmSync(stateFile(), { force: true });
  log('stopped');
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
