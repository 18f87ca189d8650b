// A relying party's back-channel logout endpoint on a loopback port: records every POST and answers as told.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface ReceivedLogout {
  path: string;
  contentType: string | undefined;
  logoutToken: string | null;
  at: number;
}

/** A status to answer with, or 'hang' to never answer (the provider's timeout must end the wait). */
export type Answer = number | 'hang';

export interface LogoutReceiver {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  received: ReceivedLogout[];
  /** Answers for the next requests, in order; once used up, every request gets 200. */
  answers: Answer[];
  /** Resolves once `count` requests have arrived in all (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedLogout[]>;
}

export async function startLogoutReceiver(t: Test): Promise<LogoutReceiver> {
  const received: ReceivedLogout[] = [];
  const answers: Answer[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        logoutToken: new URLSearchParams(body).get('logout_token'),
        at: Date.now(),
      });
      const answer = answers.shift() ?? 200;
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer, { 'cache-control': 'no-store' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  t.teardown(async () => {
    for (const res of hanging) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    answers,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} back-channel logouts, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
  };
}
