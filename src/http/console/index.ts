// The web console (issue 20, docs/console.md) at {BASE_URL}/admin: server-rendered pages, no script, a client of this
// provider. Every route but the sign-in's own is behind one hook: a live console session (else the browser is sent
// to sign in), the admin role for a change (auditors read only), and on every POST the form's CSRF token.
import type { FastifyInstance } from 'fastify';
import { ensureConsoleClient } from '../../domain/console/console-client.js';
import { isConsoleFormToken, resolveConsoleSession } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { preferredLocale } from '../../i18n/negotiate.js';
import { translator } from '../../i18n/translate.js';
import { CONSOLE_CSS } from './views/layout.js';
import { forbiddenBody } from './views/pages.js';
import { oauthErrorHandler } from '../plugins/error-handler.js';
import { seeOther } from '../redirect.js';
import { CONSOLE_PREFIX, consoleSessionCookie, sendPage } from './console-http.js';
import { clientPages } from './clients.js';
import { connectionPages } from './connections.js';
import { directoryPages } from './directories.js';
import { resourceServerPages } from './resource-servers.js';
import { samlServiceProviderPages } from './saml-service-providers.js';
import { scimTokenPages } from './scim-tokens.js';
import { dashboardPage } from './dashboard.js';
import { groupPages } from './groups.js';
import { securityPages } from './security.js';
import { signInRoutes, startSignIn } from './sign-in.js';
import { userPages } from './users.js';
import { webhookPages } from './webhooks.js';

export { CONSOLE_PREFIX };

export interface ConsoleOptions {
  ctx: ProviderContext;
  /** Sessions ended by a change queued back-channel logouts: deliver them now. */
  onLogoutsQueued?: () => void;
  /** A change queued a message (a reset link): deliver it now. */
  onMessagesQueued?: () => void;
}

export default async function consoleRoutes(app: FastifyInstance, opts: ConsoleOptions) {
  const { ctx } = opts;
  const base = `${ctx.config.baseUrl}${CONSOLE_PREFIX}`;
  await ensureConsoleClient(ctx);
  // Errors thrown on a console route are answered with a page: every route is marked html for the OAuth wire's handler.
  app.setErrorHandler(oauthErrorHandler(ctx.config));
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), html: true };
  });
  // The pages' language, chosen as the sign-in pages choose it outside an authorization request (docs/languages.md):
  // the browser's Accept-Language, then DEFAULT_LOCALE.
  app.decorateRequest('consoleText', null);
  app.addHook('onRequest', async (request) => {
    request.consoleText = translator(preferredLocale(undefined, request.headers['accept-language']) ?? ctx.config.defaultLocale);
  });

  app.get('/console.css', async (_request, reply) =>
    reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CONSOLE_CSS),
  );
  signInRoutes(app, ctx, base);

  await app.register(async (area) => {
    area.decorateRequest('consolePerson', null);
    area.addHook('preHandler', async (request, reply) => {
      const person = await resolveConsoleSession(ctx, request.cookies[consoleSessionCookie(ctx.config).name]);
      if (!person) return request.method === 'GET' ? startSignIn(ctx, reply, 'none') : seeOther(reply, base);
      request.consolePerson = person;
      const t = request.consoleText ?? translator(ctx.config.defaultLocale);
      const writes = request.method === 'POST' || request.routeOptions.config?.consoleWrite === true;
      if (writes && person.principal.role !== 'admin') {
        return sendPage(
          reply,
          base,
          {
            status: 403,
            title: t('console.readOnly.title'),
            section: '',
            body: forbiddenBody(t('console.readOnly.body')),
          },
          person,
        );
      }
      if (request.method === 'POST' && !isConsoleFormToken(person.cookie, single((request.body ?? {}) as RawParams, 'csrf'))) {
        return sendPage(
          reply,
          base,
          {
            status: 403,
            title: t('console.foreignForm.title'),
            section: '',
            body: forbiddenBody(t('console.foreignForm.body')),
          },
          person,
        );
      }
    });
    dashboardPage(area, ctx, base);
    clientPages(area, ctx, base);
    userPages(area, ctx, base, opts);
    groupPages(area, ctx, base);
    webhookPages(area, ctx, base);
    securityPages(area, ctx, base);
    connectionPages(area, ctx, base);
    samlServiceProviderPages(area, ctx, base);
    directoryPages(area, ctx, base);
    resourceServerPages(area, ctx, base);
    scimTokenPages(area, ctx, base);
  });
}
