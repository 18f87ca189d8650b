// X-Content-Type-Options: nosniff on every response (JSON, redirects, errors), not only on pages, so that no
// browser ever renders an API answer as something other than its declared type (Fetch: "X-Content-Type-Options").
// Strict-Transport-Security on every response when the issuer is https (RFC 6797 6.1, RFC 9700 4.16 and OWASP's
// secure headers): after the first visit, a browser never sends the session cookie or the sign-in form over plain
// http. RFC 6797 7.2 forbids the header over plain http; the issuer's scheme is the scheme browsers use, also when a
// proxy ends TLS in front of the server.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface SecurityHeadersOptions {
  /** The Strict-Transport-Security value, or null to send none (an http issuer, or HSTS_MAX_AGE_SECONDS=0). */
  strictTransportSecurity: string | null;
}

/** The Strict-Transport-Security value for this issuer, or null when none may be sent. */
export function strictTransportSecurity(issuer: string, maxAgeSeconds: number): string | null {
  return issuer.startsWith('https://') && maxAgeSeconds > 0 ? `max-age=${maxAgeSeconds}` : null;
}

export default fp(
  async function securityHeaders(app: FastifyInstance, opts: SecurityHeadersOptions) {
    const sts = opts.strictTransportSecurity;
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-content-type-options', 'nosniff');
      if (sts !== null) reply.header('strict-transport-security', sts);
      return payload;
    });
  },
  { name: 'security-headers' },
);
