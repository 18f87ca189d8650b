// POST /account/connections/:id/unlink: the account page's "Unlink" for one upstream account (issue 19), refused while
// it is the person's last way to sign in (src/domain/connections/account-links.ts).
import type { FastifyInstance } from 'fastify';
import { unlinkOwn } from '../../domain/connections/account-links.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { accountSession } from '../account-session.js';
import { pageLanguage } from '../page-language.js';
import { seeOther } from '../redirect.js';
import { accountErrorPage } from '../views/account-pages.js';
import { PAGE_HEADERS } from '../views/layout.js';

const paramsSchema = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' } },
  required: ['id'],
} as const;

const formSchema = {
  type: 'object',
  properties: { csrf: { type: 'string' }, subject: { type: 'string', maxLength: 255 } },
  required: ['subject'],
} as const;

export default async function accountConnectionRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const base = `${ctx.config.issuer}/account`;
  const { formPost } = accountSession(ctx);

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/connections/:id/unlink',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
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
