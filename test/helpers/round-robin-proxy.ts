// A tiny load balancer for e2e tests, on 127.0.0.1 only, behaving like a real one and no kinder:
// - round robin over the instances its health check (GET /readyz every 100 ms) last saw ready;
// - keep-alive connections to the instances, as balancers keep;
// - a request is retried on the next instance only when the connection was refused, before anything was sent;
//   any other failure (reset, hang-up, timeout) is answered 502 and counted, never retried.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  /** Where the instance listens, once registered (the port it reported); a restarted instance registers anew. */
  port: number | undefined;
  /** What the last health check saw. */
  healthy: boolean;
  /** Responses this instance gave through the proxy. */
  served: number;
}

export interface ProxyFailure {
  method: string;
  url: string;
  reason: string;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);
const HEALTH_INTERVAL_MS = 100;

export class RoundRobinProxy {
  readonly upstreams: Upstream[];
  /** Requests the proxy could not get answered: each one a failure a client saw (502 or 503). */
  readonly failures: ProxyFailure[] = [];
  /** Requests retried on another instance after a refused connection. */
  retriedRefused = 0;
  private next = 0;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private timer: NodeJS.Timeout | undefined;

  /** `count` instances, each unregistered (never chosen) until `register` names its port. */
  constructor(count: number) {
    this.upstreams = Array.from({ length: count }, () => ({ port: undefined, healthy: false, served: 0 }));
  }

  /** Instance `index` now listens on `port`: checked there from the next health check on. */
  register(index: number, port: number): void {
    const upstream = this.upstreams[index];
    if (!upstream) throw new Error(`no instance ${index}`);
    upstream.port = port;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.timer = setInterval(() => this.checkHealth(), HEALTH_INTERVAL_MS);
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private checkHealth(): void {
    for (const upstream of this.upstreams) {
      if (upstream.port === undefined) continue;
      const probe = http.get({ host: '127.0.0.1', port: upstream.port, path: '/readyz', agent: false, timeout: 1000 }, (res) => {
        upstream.healthy = res.statusCode === 200;
        res.resume();
      });
      probe.on('timeout', () => probe.destroy(new Error('health check timed out')));
      probe.on('error', () => {
        upstream.healthy = false;
      });
    }
  }

  /** The healthy instances, starting with the next one in turn. */
  private order(): Upstream[] {
    const healthy = this.upstreams.filter((u) => u.healthy);
    const start = this.next++ % Math.max(healthy.length, 1);
    return [...healthy.slice(start), ...healthy.slice(0, start)];
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.forward(req, res, Buffer.concat(chunks), this.order()));
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, candidates: Upstream[]): void {
    const fail = (status: number, reason: string) => {
      this.failures.push({ method: req.method!, url: req.url!, reason });
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(reason);
    };
    const [upstream, ...rest] = candidates;
    if (!upstream) return fail(503, 'no instance is ready');
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...headers, 'content-length': String(body.length) },
        agent: this.agent,
      },
      (answer) => {
        const copied = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        res.writeHead(answer.statusCode!, copied as http.OutgoingHttpHeaders);
        answer.pipe(res);
        answer.on('end', () => (upstream.served += 1));
        answer.on('error', (err) => fail(502, `response from ${upstream.port} broke: ${err.message}`));
      },
    );
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      // Refused: the instance never saw the request, so another may take it. Anything else: it may have.
      if (err.code === 'ECONNREFUSED') {
        upstream.healthy = false;
        this.retriedRefused += 1;
        this.forward(req, res, body, rest);
        return;
      }
      fail(502, `${upstream.port}: ${err.code ?? err.message}`);
    });
    outgoing.end(body);
  }
}
