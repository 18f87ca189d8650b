// The account page's upstream accounts (issue 19, "Accounts from upstream"): POST /account/connections/:id/link sends
// the signed-in person upstream to link another account (the callback links it, connection-callback.ts);
// POST /account/connections/:id/unlink removes one, refused while it is the person's last way to sign in
// (src/domain/connections/account-links.ts).
import type { FastifyInstance } from 'fastify';
import { unlinkOwn } from '../../../domain/connections/account-links.js';
import { enabledConnection, servesSignIn } from '../../../domain/connections/connections.js';
import type { UpstreamDirectory } from '../../../domain/connections/upstream-directory.js';
import { UpstreamRefusal } from '../../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../../domain/context.js';
import { single, type RawParams } from '../../../domain/params.js';
import { accountSession } from './account-session.js';
import { pageLanguage } from '../../page-language.js';
import { seeOther } from '../../redirect.js';
import { sendUpstream } from '../upstream-redirect.js';
import { accountErrorPage } from '../views/account-pages.js';
import { PAGE_HEADERS } from '../../views/layout.js';
import { connectionIdParams } from '../connection-params.js';

const formSchema = {
  type: 'object',
  properties: { csrf: { type: 'string' }, subject: { type: 'string', maxLength: 255 } },
  required: ['subject'],
} as const;

const linkFormSchema = {
  type: 'object',
  properties: { csrf: { type: 'string' } },
} as const;

export default async function accountConnectionRoutes(app: FastifyInstance, opts: { ctx: ProviderContext; directory: UpstreamDirectory }) {
  const { ctx, directory } = opts;
  const base = `${ctx.config.issuer}/account`;
  const { formPost } = accountSession(ctx);

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/connections/:id/link',
    { schema: { params: connectionIdParams, body: linkFormSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      try {
        const connection = await enabledConnection(ctx, request.params.id);
        // Linking goes through a provider-wide connection only, as the account page offers (issue 40).
        if (!connection || !servesSignIn(connection, null))
          throw new UpstreamRefusal('unknown-connection', `no enabled connection ${request.params.id}`);
        // The same trip as a sign-in (PKCE S256, state, nonce, the browser's binding), coming back to link, not to sign in.
        return await sendUpstream(ctx, directory, request, reply, connection, { purpose: { kind: 'link', userId: who.user.id } });
      } catch (err) {
        if (!(err instanceof UpstreamRefusal)) throw err;
        request.log.warn({ connection: request.params.id, refusal: err.kind, detail: err.detail }, 'upstream link not started');
        const t = pageLanguage(request, ctx.config);
        return reply
          .code(err.status)
          .headers(PAGE_HEADERS)
          .send(accountErrorPage(t, base, t('connections.linkNotStarted'), t(err.key)));
      }
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/connections/:id/unlink',
    { schema: { params: connectionIdParams, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const outcome = await unlinkOwn(ctx, who.user, request.params.id, single(request.body, 'subject') ?? '');
      if (outcome === 'unlinked') return seeOther(reply, base);
      const t = pageLanguage(request, ctx.config);
      const [status, lead] = outcome === 'last-way-in' ? [409, t('connections.lastWayIn')] : [404, t('connections.noSuchLink')];
      return reply
        .code(status)
        .headers(PAGE_HEADERS)
        .send(accountErrorPage(t, base, t('connections.unlinkTitle'), lead));
    },
  );
}
