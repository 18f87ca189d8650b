// Two relying-party libraries as a new user would set them up, each in an Express app on a loopback port: Auth.js
// (@auth/express, a provider of type "oidc") and Auth0's express-openid-connect. Each shows the signed-in user's
// name and email on its home page, from what the library kept of the sign-in (the ID token's claims).
import http from 'node:http';
import express from 'express';
import { auth } from 'express-openid-connect';
import type { Test } from 'tap';
import { holdPort, type HeldPort } from './listening.js';

const HOST = '127.0.0.1';

/** The part of Auth.js's configuration used here (@auth/core's AuthConfig). */
interface AuthJsConfig {
  trustHost: boolean;
  secret: string;
  providers: Array<{ id: string; name: string; type: 'oidc'; issuer: string; clientId: string; clientSecret: string }>;
}
interface AuthExpress {
  ExpressAuth(config: AuthJsConfig): express.RequestHandler;
  getSession(req: express.Request, config: AuthJsConfig): Promise<{ user?: { name?: string | null; email?: string | null } } | null>;
}

/**
 * @auth/express's types bring preact's JSX types, which reference the DOM lib and would change the global fetch and
 * Request types of the whole program (tsconfig.json has ES2023 only): it is loaded by a specifier tsc does not follow.
 */
const AUTH_EXPRESS = '@auth/express';
const { ExpressAuth, getSession } = (await import(AUTH_EXPRESS)) as AuthExpress;

export interface RelyingPartyApp {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The redirect URI to register for its client. */
  redirectUri: string;
  /** Starts listening, against `issuer`; closed with the test. */
  start(t: Test, issuer: string): Promise<void>;
}

export interface RpClient {
  clientId: string;
  clientSecret: string;
}

/** The home page: the user's name and email, escaped, or "signed out". */
function home(user: { name?: unknown; email?: unknown } | undefined | null): string {
  const escape = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = user ? `<p id="name">${escape(user.name)}</p><p id="email">${escape(user.email)}</p>` : '<p id="signed-out">signed out</p>';
  return `<!doctype html><title>RP</title>${body}`;
}

/** The Express app served on the port held for it; closed with the test (its idle connections with it). */
function serve(t: Test, app: express.Express, held: HeldPort): void {
  const server = http.createServer(app);
  held.serve(server);
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** Auth.js: sign-in at /auth/signin, the callback at /auth/callback/sso, the session in its own cookie. */
export async function authJsApp(t: Test, client: RpClient): Promise<RelyingPartyApp> {
  const held = await holdPort(t);
  const baseUrl = `http://${HOST}:${held.port}`;
  return {
    baseUrl,
    redirectUri: `${baseUrl}/auth/callback/sso`,
    async start(t, issuer) {
      const config: AuthJsConfig = {
        trustHost: true,
        secret: 'an Auth.js secret for the end-to-end test only, 32+',
        providers: [{ id: 'sso', name: 'Our SSO', type: 'oidc', issuer, clientId: client.clientId, clientSecret: client.clientSecret }],
      };
      const app = express();
      app.set('trust proxy', true);
      app.use('/auth', ExpressAuth(config));
      app.get('/', async (req, res) => {
        const session = await getSession(req, config);
        res.type('html').send(home(session?.user));
      });
      serve(t, app, held);
    },
  };
}

/** express-openid-connect: sign-in at /login, the callback at /callback, the session in its encrypted cookie. */
export async function expressOpenIdConnectApp(t: Test, client: RpClient): Promise<RelyingPartyApp> {
  const held = await holdPort(t);
  const baseUrl = `http://${HOST}:${held.port}`;
  return {
    baseUrl,
    redirectUri: `${baseUrl}/callback`,
    async start(t, issuer) {
      const app = express();
      app.use(
        auth({
          issuerBaseURL: issuer,
          baseURL: baseUrl,
          clientID: client.clientId,
          clientSecret: client.clientSecret,
          secret: 'an express-openid-connect secret for the end-to-end test only',
          authRequired: false,
          enableTelemetry: false,
          // Its default is the implicit flow (id_token); this provider does the code flow only.
          authorizationParams: { response_type: 'code', scope: 'openid profile email' },
        }),
      );
      app.get('/', (req, res) => {
        res.type('html').send(home(req.oidc.user));
      });
      serve(t, app, held);
    },
  };
}
