// POST /connections/:id/start: the sign-in page's button for an upstream connection. The form carries the pending
// interaction and its binding (the CSRF field of every sign-in form); the browser goes upstream with a fresh state,
// nonce and PKCE challenge (src/domain/connections/upstream-login.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InteractionError, interactionLocale, loadInteraction } from '../../domain/authorization/authorize.js';
import { enabledConnection, servesSignIn } from '../../domain/connections/connections.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { pageLanguage } from '../page-language.js';
import { sendUpstream, signInTrip } from './upstream-redirect.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';
import { connectionIdParams } from './connection-params.js';

const formSchema = {
  type: 'object',
  properties: {
    interaction: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' },
    csrf: { type: 'string', maxLength: 128 },
  },
  required: ['interaction', 'csrf'],
} as const;

export default async function connectionStartRoutes(app: FastifyInstance, opts: { ctx: ProviderContext; directory: UpstreamDirectory }) {
  const { ctx, directory } = opts;

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/connections/:id/start',
    { schema: { params: connectionIdParams, body: formSchema }, config: { html: true } },
    async (request: FastifyRequest<{ Params: { id: string }; Body: RawParams }>, reply: FastifyReply) => {
      const interactionId = single(request.body, 'interaction') ?? '';
      const t = pageLanguage(request, ctx.config, await interactionLocale(ctx, interactionId));
      try {
        // The binding secret is the interaction's CSRF token: only the page of the browser that started it holds it.
        const interaction = await loadInteraction(ctx, interactionId, single(request.body, 'csrf'));
        const connection = await enabledConnection(ctx, request.params.id);
        // An organization's connection serves the sign-ins for it only (issue 40): to any other it does not exist.
        if (!connection || !servesSignIn(connection, interaction.organizationId))
          throw new UpstreamRefusal('unknown-connection', `no enabled connection ${request.params.id} for this sign-in`);
        return await sendUpstream(ctx, directory, request, reply, connection, signInTrip(interaction));
      } catch (err) {
        if (err instanceof InteractionError)
          return reply
            .code(400)
            .headers(PAGE_HEADERS)
            .send(errorPage(t, t(err.key)));
        if (err instanceof UpstreamRefusal) {
          request.log.warn({ connection: request.params.id, refusal: err.kind, detail: err.detail }, 'upstream sign-in not started');
          return reply
            .code(err.status)
            .headers(PAGE_HEADERS)
            .send(errorPage(t, t(err.key)));
        }
        throw err;
      }
    },
  );
}
