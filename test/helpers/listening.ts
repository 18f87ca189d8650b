// The test app listening on a loopback port, its BASE_URL set to that very address (for e2e tests).
import net from 'node:net';
import type { Test } from 'tap';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';

const HOST = '127.0.0.1';

/** A port the kernel says is free now: bind port 0, read the port, release it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('no port from the kernel'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

export interface ListeningApp extends TestApp {
  /** `http://127.0.0.1:<port>` (or `http://localhost:<port>` with `hostName: 'localhost'`) */
  baseUrl: string;
  /** `${baseUrl}/sso` */
  issuer: string;
}

/**
 * Builds the app with BASE_URL on a free port and listens on exactly that port; closed with the test. `hostName:
 * 'localhost'` names the issuer by host name, as WebAuthn needs (an RP ID is a domain, never an IP address); the
 * server still listens on 127.0.0.1 only.
 */
export async function listenTestApp(t: Test, options: TestAppOptions & { hostName?: 'localhost' } = {}): Promise<ListeningApp> {
  const port = await freePort();
  const baseUrl = `http://${options.hostName ?? HOST}:${port}`;
  const testApp = await buildTestApp(t, { ...options, env: { ...options.env, BASE_URL: baseUrl } });
  await testApp.app.listen({ port, host: HOST });
  return { ...testApp, baseUrl, issuer: testApp.config.issuer };
}
