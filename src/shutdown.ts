// A graceful stop on SIGTERM or SIGINT, in the order a load balancer needs:
//   1. /readyz answers 503 at once (the balancer stops routing here);
//   2. for SHUTDOWN_DRAIN_SECONDS the instance still serves, each response with Connection: close, while the
//      balancer notices (0 by default: straight on);
//   3. the listener closes (new connections are refused) and idle keep-alive connections are closed; requests in
//      flight finish, answered with Connection: close, within SHUTDOWN_TIMEOUT_SECONDS, after which their
//      connections are cut;
//   4. the periodic jobs stop (the app's onClose hooks), then whatever else was opened (metrics listener, pool);
//   5. exit 0, or 1 when requests had to be cut or something failed to close.
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Lifecycle } from './domain/readiness.js';

/** How often connections that turned idle during the shutdown are closed. */
const IDLE_SWEEP_MS = 100;

export interface ShutdownOptions {
  app: FastifyInstance;
  lifecycle: Lifecycle;
  logger: Logger;
  drainSeconds: number;
  timeoutSeconds: number;
  /** Closed in this order once the app has closed: the metrics listener, the database pool. */
  afterApp: Array<() => Promise<void>>;
}

/** Installs the SIGTERM and SIGINT handlers; a second signal changes nothing. */
export function stopOnSignals(options: ShutdownOptions): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void shutDown(options, signal).then((code) => process.exit(code));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

export async function shutDown(options: ShutdownOptions, signal: string): Promise<number> {
  const { app, lifecycle, logger, drainSeconds, timeoutSeconds } = options;
  lifecycle.shuttingDown = true;
  logger.info({ signal, drainSeconds, timeoutSeconds }, 'shutting down');
  // Whatever hangs (a job, the pool), the process ends.
  const backstop = setTimeout(
    () => {
      logger.error('shutdown did not finish; exiting');
      process.exit(1);
    },
    (drainSeconds + timeoutSeconds + 10) * 1000,
  );
  backstop.unref();

  let exitCode = 0;
  try {
    if (drainSeconds > 0) {
      closeAfterEachResponse(app.server);
      await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
    }
    const serverClosed = new Promise<void>((resolve) => app.server.once('close', () => resolve()));
    const cut = setTimeout(() => {
      exitCode = 1;
      logger.warn({ timeoutSeconds }, 'requests still in flight after SHUTDOWN_TIMEOUT_SECONDS; closing their connections');
      app.server.closeAllConnections();
    }, timeoutSeconds * 1000);
    // Node closes the idle keep-alive connections once, when the listener closes. A request routed before that
    // answers without Connection: close, and its connection turns idle afterwards: it is closed here, within
    // IDLE_SWEEP_MS, rather than left open until the client's keep-alive ends (as Go's Server.Shutdown does).
    const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    void serverClosed.then(() => {
      clearTimeout(cut);
      clearInterval(sweep);
    });
    await app.close();
    clearTimeout(cut);
    clearInterval(sweep);
    for (const close of options.afterApp) await close();
  } catch (err) {
    logger.error({ err }, 'shutdown failed');
    exitCode = 1;
  }
  clearTimeout(backstop);
  logger.info({ exitCode }, 'stopped');
  return exitCode;
}

/**
 * From now on every response closes its connection, so keep-alive clients reconnect (to another instance). Idle
 * connections are left alone until the listener closes: closing one now could race a request the balancer is
 * sending on it before it has seen /readyz fail.
 */
function closeAfterEachResponse(server: Server): void {
  server.prependListener('request', (_request, response) => {
    response.setHeader('connection', 'close');
  });
}
