// The configuration files of the high-availability cluster: one Patroni file per node and HAProxy's.
// Patroni reads YAML, of which JSON is a subset: the file is written with JSON.stringify.

export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  haproxy: number;
  haproxyStats: number;
}

export interface NodePorts {
  name: string;
  postgres: number;
  rest: number;
  dataDir: string;
}

/**
 * Failover within seconds. Patroni's rule is loop_wait + 2 * retry_timeout <= ttl. ttl is how long a leader that
 * stopped answering (its whole machine gone) keeps the lock; a crashed PostgreSQL is failed over sooner, at the
 * next loop, because primary_start_timeout 0 makes Patroni hand the lock over rather than restart the primary.
 */
export const TIMEOUTS = { ttl: 10, loop_wait: 1, retry_timeout: 4, primary_start_timeout: 0 } as const;

export function patroniConfig(options: { scope: string; node: NodePorts; ports: Ports; dir: string; pgBinDir: string }): string {
  const { node, ports } = options;
  const config = {
    scope: options.scope,
    name: node.name,
    restapi: { listen: `127.0.0.1:${node.rest}`, connect_address: `127.0.0.1:${node.rest}` },
    etcd3: { hosts: [`127.0.0.1:${ports.etcdClient}`], protocol: 'http' },
    bootstrap: {
      dcs: {
        ...TIMEOUTS,
        maximum_lag_on_failover: 1048576,
        // A commit returns only once the synchronous standby has flushed it, and only that standby may be promoted:
        // what a client was told is stored survives the primary. Not strict: with the standby gone, the primary
        // goes on alone rather than stopping every write.
        synchronous_mode: true,
        synchronous_mode_strict: false,
        postgresql: {
          // The old primary rejoins as a standby: pg_rewind drops what it wrote that the new primary never got.
          use_pg_rewind: true,
          use_slots: true,
          parameters: { wal_level: 'replica', hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10 },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }, 'data-checksums'],
      // Loopback only, and trusted: a test cluster. A deployment sets passwords (scram-sha-256) here.
      pg_hba: ['local all all trust', 'host replication replicator 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust'],
    },
    postgresql: {
      listen: `127.0.0.1:${node.postgres}`,
      connect_address: `127.0.0.1:${node.postgres}`,
      data_dir: node.dataDir,
      bin_dir: options.pgBinDir,
      pgpass: `${options.dir}/pgpass-${node.name}`,
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
        rewind: { username: 'postgres', password: 'postgres' },
      },
      parameters: { unix_socket_directories: options.dir, max_connections: 100 },
    },
    watchdog: { mode: 'off' },
    log: { level: 'INFO' },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * HAProxy passes PostgreSQL's TCP through to the one node whose Patroni answers 200 on /primary. A node marked down
 * has its connections cut (on-marked-down shutdown-sessions) so that clients reconnect to the new primary.
 */
export function haproxyConfig(ports: Ports, nodes: NodePorts[]): string {
  return [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    // Longer than the provider pool's idle timeout (30 s): HAProxy never closes a connection the pool keeps.
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    'listen stats',
    '  mode http',
    `  bind 127.0.0.1:${ports.haproxyStats}`,
    '  stats enable',
    '  stats uri /',
    'listen postgres',
    `  bind 127.0.0.1:${ports.haproxy}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.postgres} check port ${n.rest}`),
    '',
  ].join('\n');
}
