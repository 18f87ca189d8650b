// The logger each request gets (request.log): the app's logger with the request id added to every line.
//
// Fastify's default makes a pino child per request, and pino prepares a child's bindings (redaction included)
// as it is made, for every request, whether or not anything is logged: most of the cost of a small request
// such as the JWKS. Here the id is merged into the few lines actually written, and a child is made only if asked.
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

type LogMethod = (first?: unknown, ...rest: unknown[]) => void;

export function requestLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>): FastifyBaseLogger {
  const enabled = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.bind(logger) ?? (() => true);
  const method = (level: Level): LogMethod => (first, ...rest) => {
    if (!enabled(level)) return;
    const log = logger[level] as LogMethod;
    if (first instanceof Error) log.call(logger, { ...bindings, err: first }, ...rest);
    else if (typeof first === 'object' && first !== null) log.call(logger, { ...bindings, ...first }, ...rest);
    else log.call(logger, bindings, first, ...rest);
  };
  const wrapped = { child: (more: Record<string, unknown>, options?: object) => logger.child({ ...bindings, ...more }, options) } as Record<string, unknown>;
  for (const level of LEVELS) wrapped[level] = method(level);
  wrapped.silent = () => {};
  Object.defineProperty(wrapped, 'level', { get: () => logger.level, set: (value: string) => (logger.level = value) });
  return wrapped as unknown as FastifyBaseLogger;
}
