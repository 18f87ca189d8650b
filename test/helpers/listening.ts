// The test app listening on a loopback port, its BASE_URL set to that very address (for e2e tests).
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
  let serve: (socket: net.Socket) => void = (socket) => socket.destroy();
  const { port } = await listenOnPortZero(t, (socket) => serve(socket));
  const baseUrl = `http://${options.hostName ?? HOST}:${port}`;
  const testApp = await buildTestApp(t, { ...options, env: { ...options.env, BASE_URL: baseUrl } });
  serve = (socket) => testApp.app.server.emit('connection', socket);
  return { ...testApp, baseUrl, issuer: testApp.config.issuer };
}
