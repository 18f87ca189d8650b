// HTTP/1.1 over node:http with a keep-alive agent: on a 2-core machine the load generator competes with the
// server for CPU, and node:http costs less per request than fetch. One client per measured run.
import http from 'node:http';

/**
 * A client that names itself: the risk evaluation reads a request without a user agent as automation and asks it
 * for a second factor, which no closed loop can answer.
 */
const USER_AGENT = 'sso-bench/1';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const REQUEST_TIMEOUT_MS = 30_000;

/** The path of `url` on `origin`; refuses any other origin (an endpoint elsewhere is a broken discovery document). */
export function pathOn(origin: URL, url: string): string {
  const parsed = new URL(url);
  if (parsed.origin !== origin.origin) throw new Error(`${url} is not on ${origin.origin}`);
  return `${parsed.pathname}${parsed.search}`;
}

export class HttpClient {
  private readonly agent: http.Agent;
  private readonly host: string;
  private readonly ports: readonly number[];
  private next = 0;

  /**
   * `origin` is the server's http://127.0.0.1:port; `sockets` the connections kept open (one per virtual user);
   * `ports`: several instances of one issuer on this host (--instances), sent requests in turn.
   */
  constructor(
    readonly origin: URL,
    sockets: number,
    ports: readonly number[] = [Number(origin.port)],
  ) {
    if (origin.protocol !== 'http:' || origin.hostname !== '127.0.0.1')
      throw new Error(`the bench only talks to http://127.0.0.1 (got ${origin.href})`);
    this.host = origin.hostname;
    this.ports = ports;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  request(method: 'GET' | 'POST', path: string, headers: http.OutgoingHttpHeaders = {}, body?: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.host,
          port: this.ports[this.next++ % this.ports.length],
          method,
          path,
          headers: { 'user-agent': USER_AGENT, ...headers },
          agent: this.agent,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      if (body === undefined) {
        req.end();
      } else {
        req.setHeader('content-length', Buffer.byteLength(body));
        req.end(body);
      }
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
