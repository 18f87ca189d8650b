// Each request's logger (request.log, reply.log), made when the request first writes a line.
//
// Fastify gives every request a child of the app's logger that carries the request's id. Making that child runs the
// id through pino's redaction of every path in src/logger.ts: about 1.5 microseconds a request, for a logger that
// most requests never use (their one line is written by http/plugins/request-log.ts with the id in it). The child
// made here is the same pino child, made on the first line the request writes.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';

type LogArgs = [unknown, ...unknown[]];

function write(method: LogFn, logger: FastifyBaseLogger, args: LogArgs): void {
  (method as (...a: LogArgs) => void).apply(logger, args);
}

class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.logger.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: LogArgs): void {
    write(this.logger.fatal, this.logger, args);
  }
  error(...args: LogArgs): void {
    write(this.logger.error, this.logger, args);
  }
  warn(...args: LogArgs): void {
    write(this.logger.warn, this.logger, args);
  }
  info(...args: LogArgs): void {
    write(this.logger.info, this.logger, args);
  }
  debug(...args: LogArgs): void {
    write(this.logger.debug, this.logger, args);
  }
  trace(...args: LogArgs): void {
    write(this.logger.trace, this.logger, args);
  }
  silent(...args: LogArgs): void {
    write(this.logger.silent, this.logger, args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
