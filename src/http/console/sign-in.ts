// Signing in to the console through this provider (OIDC Core 3.1, authorization code flow with PKCE), the callback
// that ends it, and signing out. What is checked lives in src/domain/console/console-sign-in.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consoleAuthorizationRequest, finishConsoleSignIn, type Reauthentication } from '../../domain/console/console-sign-in.js';
import { endConsoleSession, isConsoleFormToken, startConsoleSession } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { single, type RawParams } from '../../domain/params.js';
import { seeOther } from '../redirect.js';
import { badSignInBody, noRoleBody, secondFactorNeededBody, signedOutBody } from './views/pages.js';
import { consoleBindingCookie, consoleSessionCookie, sendPage, textOf } from './console-http.js';
import type { SafeHtml } from '../../html.js';
import type { MessageKey } from '../../i18n/catalog.js';
import type { Translate } from '../../i18n/translate.js';

/** Sends the browser to the provider's authorization endpoint, bound to it by a fresh cookie. */
export function startSignIn(ctx: ProviderContext, reply: FastifyReply, reauthenticate: Reauthentication): FastifyReply {
  const { binding, url } = consoleAuthorizationRequest(ctx.config, reauthenticate);
  const cookie = consoleBindingCookie(ctx.config);
  reply.setCookie(cookie.name, binding, cookie.options);
  return seeOther(reply, url);
}

const signInQuery = { type: 'object', properties: { again: { type: 'string', maxLength: 8 } } } as const;
const callbackQuery = {
  type: 'object',
  properties: {
    code: { type: 'string', maxLength: 512 },
    state: { type: 'string', maxLength: 512 },
    error: { type: 'string', maxLength: 256 },
    iss: { type: 'string', maxLength: 2048 },
  },
} as const;

export function signInRoutes(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const binding = consoleBindingCookie(ctx.config);
  const session = consoleSessionCookie(ctx.config);
  const refusal = (reply: FastifyReply, status: number, title: MessageKey, body: (t: Translate) => SafeHtml) => {
    const t = textOf(reply.request);
    return sendPage(reply, base, { status, title: t(title), section: '', body: body(t) }, null);
  };

  app.get<{ Querystring: { again?: string } }>('/sign-in', { schema: { querystring: signInQuery } }, async (request, reply) =>
    startSignIn(ctx, reply, request.query.again === undefined ? 'none' : 'login'),
  );

  app.get<{ Querystring: { code?: string; state?: string; error?: string; iss?: string } }>(
    '/callback',
    { schema: { querystring: callbackQuery } },
    async (request, reply) => {
      const bound = request.cookies[binding.name];
      reply.clearCookie(binding.name, { path: binding.options.path });
      // RFC 9207 2.4: an iss that is not ours means the response came from elsewhere.
      if (request.query.iss !== undefined && request.query.iss !== ctx.config.issuer) {
        return refusal(reply, 400, 'console.signIn.notCompleted', (t) => badSignInBody(t, base));
      }
      let outcome;
      try {
        outcome = await finishConsoleSignIn(ctx, bound, request.query);
      } catch (err) {
        // A code refused by the grant (used twice, expired): the sign-in simply did not complete.
        if (!(err instanceof OAuthError)) throw err;
        request.log.info({ event: 'console.sign_in_refused', error: err.error }, 'console sign-in refused');
        return refusal(reply, 400, 'console.signIn.notCompleted', (t) => badSignInBody(t, base));
      }
      switch (outcome.kind) {
        case 'signed-in': {
          const value = await startConsoleSession(ctx, outcome.userId);
          reply.setCookie(session.name, value, session.options);
          request.log.info({ event: 'console.signed_in', userId: outcome.userId, role: outcome.role }, 'console sign-in');
          return seeOther(reply, base);
        }
        case 'no-second-factor':
          return refusal(reply, 403, 'console.signIn.secondFactorTitle', (t) => secondFactorNeededBody(t, base));
        case 'no-role':
          return refusal(reply, 403, 'console.signIn.noRoleTitle', noRoleBody);
        default:
          return refusal(reply, 400, 'console.signIn.notCompleted', (t) => badSignInBody(t, base));
      }
    },
  );

  // Signing out needs the session's form token, so that another site cannot end the session (RFC 6749 10.12's logic).
  app.post<{ Body: RawParams }>('/sign-out', async (request: FastifyRequest<{ Body: RawParams }>, reply) => {
    const cookie = request.cookies[session.name];
    if (cookie && isConsoleFormToken(cookie, single(request.body ?? {}, 'csrf'))) await endConsoleSession(ctx, cookie);
    else if (cookie) return seeOther(reply, base);
    reply.clearCookie(session.name, { path: session.options.path });
    return refusal(reply, 200, 'console.signIn.signedOutTitle', (t) => signedOutBody(t, base));
  });
}
