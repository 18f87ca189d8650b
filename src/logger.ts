// pino options shared by the server and the scripts: one line per event, no secret in any of them.
import type { LoggerOptions } from 'pino';

/** Anything that could carry a credential is censored wherever it appears in a log object. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.client_secret',
  '*.code',
  '*.code_verifier',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.csrf',
  '*.registration_access_token',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}
