// Where the provider is: PORT, HOST, BASE_URL (the issuer is BASE_URL followed by /sso), LOG_LEVEL, and the keys'
// encryption secret, which an issuer outside localhost must have.
import net from 'node:net';
import { isLoopbackUrl, LOOPBACK_HOSTS } from '../net/loopback.js';
import type { Reader } from './reader.js';

/** The path the provider's routes are mounted under (src/app.ts); the issuer is BASE_URL followed by it. */
export const ROUTES_PREFIX = '/sso';

export interface IssuerSettings {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly issuer: string;
  readonly issuerPath: string;
  readonly secureCookies: boolean;
  /** An http issuer on a loopback host: a developer's machine. */
  readonly loopbackIssuer: boolean;
  readonly logLevel: string;
  readonly keysEncryptionSecret: string | undefined;
}

/** HOST as a URL writes it (an IPv6 address in brackets) when it is one of the loopback hosts above. */
function loopbackUrlHost(host: string): string | undefined {
  const urlHost = net.isIPv6(host) ? `[${host}]` : host;
  return LOOPBACK_HOSTS.has(urlHost) ? urlHost : undefined;
}
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** PORT, HOST, BASE_URL, ALLOW_INSECURE_ISSUER, LOG_LEVEL, KEYS_ENCRYPTION_SECRET, ALLOW_UNENCRYPTED_KEYS. */
export function issuerSettings(reader: Reader): IssuerSettings {
  const { text, integer, boolean, problems } = reader;
  const port = integer('PORT');
  const host = text('HOST');
  const allowInsecureIssuer = boolean('ALLOW_INSECURE_ISSUER');
  // Without BASE_URL the issuer is where this process listens on this machine: PORT=4000 alone serves, announces
  // and puts in discovery an issuer on :4000 (a loopback HOST is kept; any other, such as 0.0.0.0, reads localhost).
  const defaultHost = loopbackUrlHost(host) ?? 'localhost';
  const baseUrl = text('BASE_URL', `http://${defaultHost}:${port}`).replace(/\/+$/, '');
  const issuerUrl = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  const secureCookies = issuerUrl?.protocol === 'https:';
  if (issuerUrl === undefined) {
    problems.push(`BASE_URL must be an absolute URL (got "${baseUrl}")`);
  } else if (issuerUrl.protocol !== 'https:' && issuerUrl.protocol !== 'http:') {
    problems.push(`BASE_URL must be an http(s) URL (got "${baseUrl}")`);
  } else if (issuerUrl.search || issuerUrl.hash || issuerUrl.username || issuerUrl.password) {
    problems.push('BASE_URL must not carry a query, fragment or credentials');
  } else if (issuerUrl.protocol === 'http:' && !isLoopbackUrl(issuerUrl) && !allowInsecureIssuer) {
    problems.push(`BASE_URL must use https outside loopback hosts (got "${baseUrl}"); set ALLOW_INSECURE_ISSUER=true to override`);
  }

  const logLevel = text('LOG_LEVEL');
  if (!LOG_LEVELS.has(logLevel)) problems.push(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')} (got "${logLevel}")`);

  // A secret that derives an AES-256 key should carry at least 256 bits when it is random base64 (openssl rand -base64 32).
  const keysEncryptionSecret = text('KEYS_ENCRYPTION_SECRET') || undefined;
  if (keysEncryptionSecret !== undefined && keysEncryptionSecret.length < 32) {
    problems.push('KEYS_ENCRYPTION_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)');
  }
  // Without it the private signing keys and authenticator secrets sit in the database in the clear: a development
  // convenience on a loopback issuer, refused anywhere else unless the operator says so in as many words.
  const allowUnencryptedKeys = boolean('ALLOW_UNENCRYPTED_KEYS');
  if (keysEncryptionSecret === undefined && !allowUnencryptedKeys && issuerUrl !== undefined && !isLoopbackUrl(issuerUrl)) {
    problems.push(
      'KEYS_ENCRYPTION_SECRET must be set on an issuer outside localhost (the signing keys would be stored in the clear): ' +
        'openssl rand -base64 32; or set ALLOW_UNENCRYPTED_KEYS=true to accept that',
    );
  }

  const loopbackIssuer = baseUrl.startsWith('http://') && issuerUrl !== undefined && isLoopbackUrl(issuerUrl);
  return {
    port,
    host,
    baseUrl,
    issuer: `${baseUrl}${ROUTES_PREFIX}`,
    issuerPath: `${issuerUrl?.pathname.replace(/\/$/, '') ?? ''}${ROUTES_PREFIX}`,
    secureCookies,
    loopbackIssuer,
    logLevel,
    keysEncryptionSecret,
  };
}
