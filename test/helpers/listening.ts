// The test app listening on a loopback port, its BASE_URL set to that very address (for e2e tests).
import type http from 'node:http';
import net from 'node:net';
import type { Test } from 'tap';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';

const HOST = '127.0.0.1';

/**
 * A TCP listener on a port the kernel chose (port 0), kept open and closed with the test: its port is handed on
 * while it is held, never released and bound again (another process could take it in between). `onConnection`
 * gets every connection.
 */
export async function listenOnPortZero(
  t: Test,
  onConnection: (socket: net.Socket) => void = (socket) => socket.destroy(),
): Promise<{ server: net.Server; port: number }> {
  const server = net.createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: HOST }, () => resolve());
  });
  // Stops listening at once; not waiting for the connections it handed on, which their server closes.
  t.teardown(() => void server.close());
  return { server, port: (server.address() as net.AddressInfo).port };
}

/**
 * A loopback port nothing listens on, for the tests of a refused connection: tcpmux (1), below the ports the kernel
 * hands out for port 0 (ip_local_port_range starts far above it), so no test's listener lands on it.
 */
export const REFUSED_PORT = 1;

/**
 * The address settings of a server child that no request reaches (a test of its logs, its exit code, its admin
 * socket): it listens on a port the kernel picks (PORT=0), and its issuer names no port, since nothing is sent there.
 */
export const UNREACHED_SERVER_ENV: Readonly<Record<string, string>> = Object.freeze({
  HOST: HOST,
  PORT: '0',
  BASE_URL: `http://${HOST}`,
});

/** The port in the server's start line (Fastify's `Server listening at http://127.0.0.1:<port>`), if `output` has it. */
export function reportedPort(output: string): number | undefined {
  const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}

export interface ForwardedPort {
  /** The port held from the start: the one BASE_URL names. */
  port: number;
  /** From now on each connection to `port` is piped to 127.0.0.1:`target` (the port the child reported). */
  forwardTo(target: number): void;
}

/**
 * A port held for a server child that must name its own address (BASE_URL) before it listens: the child listens on
 * port 0 and reports its port (reportedPort), and each connection to the held port is piped, byte for byte, to it.
 * Connections before `forwardTo`, or to a child that is gone, are dropped (the client sees a reset).
 */
export async function forwardedPort(t: Test): Promise<ForwardedPort> {
  let target: number | undefined;
  const { port } = await listenOnPortZero(t, (client) => {
    if (target === undefined) return void client.destroy();
    const upstream = net.connect({ host: HOST, port: target });
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', drop).once('close', drop);
    upstream.once('error', drop).once('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return {
    port,
    forwardTo(to) {
      target = to;
    },
  };
}

export interface HeldPort {
  port: number;
  /** From now on the held port's connections go to `server` (which never listens itself). */
  serve(server: http.Server): void;
}

/**
 * A port held now for an HTTP server built later, when the server's own settings must name its address (an
 * issuer, a redirect URI): connections wait for no one, and are dropped until `serve` is called. The connections it
 * handed on are destroyed with the test, after the server's own teardown (registered later, so run before): a server
 * that never listened tracks no connections, so its close() leaves every keep-alive one open (Fastify's for 72 s),
 * and a client of this process (fetch's pool) holding one keeps the test process alive that long after its last test.
 */
export async function holdPort(t: Test): Promise<HeldPort> {
  let target: http.Server | undefined;
  const handedOn = new Set<net.Socket>();
  const { port } = await listenOnPortZero(t, (socket) => {
    if (!target) return void socket.destroy();
    handedOn.add(socket);
    socket.once('close', () => handedOn.delete(socket));
    target.emit('connection', socket);
  });
  t.teardown(() => {
    for (const socket of handedOn) socket.destroy();
  });
  return {
    port,
    serve(server) {
      target = server;
    },
  };
}

export interface ListeningApp extends TestApp {
  /** `http://127.0.0.1:<port>` (or `http://localhost:<port>` with `hostName: 'localhost'`) */
  baseUrl: string;
  /** `${baseUrl}/sso` */
  issuer: string;
}

/**
 * Listens on port 0, builds the app with BASE_URL on the port the kernel gave, and hands each connection of that
 * listener to the app's HTTP server (Node's documented 'connection' injection): the port is held from the first
 * moment, so nothing else can take it before the app serves it. Closed with the test. `hostName:
 * 'localhost'` names the issuer by host name, as WebAuthn needs (an RP ID is a domain, never an IP address); the
 * server still listens on 127.0.0.1 only.
 */
export async function listenTestApp(t: Test, options: TestAppOptions & { hostName?: 'localhost' } = {}): Promise<ListeningApp> {
  const held = await holdPort(t);
  const baseUrl = `http://${options.hostName ?? HOST}:${held.port}`;
  const testApp = await buildTestApp(t, { ...options, env: { ...options.env, BASE_URL: baseUrl } });
  held.serve(testApp.app.server);
  return { ...testApp, baseUrl, issuer: testApp.config.issuer };
}
