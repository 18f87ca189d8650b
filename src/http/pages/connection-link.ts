// GET and POST /connections/link?proof=...: an upstream account whose verified address is a local account's is linked
// to it only once the person proves the local account is theirs (issue 19): its password, checked and counted like
// the account page's current-password check, or one of its passkeys (connection-link-passkey.ts). The proof is this
// browser's only (its upstream cookie) and used once; it travels in the query string, which the request log leaves out.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { checkCurrentPassword, type CurrentPasswordCheck } from '../../domain/accounts/current-password.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import type { PageText } from '../views/layout.js';
import connectionLinkPasskeyRoutes from './connection-link-passkey.js';
import { connectionLinkKit, querySchema } from './connection-link-kit.js';

const formSchema = {
  type: 'object',
  properties: { password: { type: 'string' }, username: { type: 'string' } },
} as const;

/** A password that did not prove the account: the status, and what the page says. */
function passwordRefusal(reply: FastifyReply, t: PageText, check: Exclude<CurrentPasswordCheck, { kind: 'right' }>) {
  if (check.kind === 'throttled') {
    reply.header('retry-after', String(check.retryAfterSeconds));
    return { status: 429, message: t('common.tooManyAttempts.other', { count: check.retryAfterSeconds }) };
  }
  if (check.kind === 'busy') return { status: 503, message: t('common.busy') };
  return { status: 401, message: t('connections.wrongPassword') };
}

export default async function connectionLinkRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const { proofContext, page, withRefusals, shown, link } = connectionLinkKit(ctx);

  app.get<{ Querystring: { proof: string } }>(
    '/connections/link',
    { schema: { querystring: querySchema }, config: { html: true } },
    withRefusals(async (request, reply, t0) => {
      const { connection, user, t } = await proofContext(request, t0);
      return page(reply, t, 200, await shown(request.query.proof, connection, user));
    }),
  );

  app.post<{ Querystring: { proof: string }; Body: RawParams }>(
    '/connections/link',
    { schema: { querystring: querySchema, body: formSchema }, config: { html: true } },
    withRefusals(async (request, reply, t0) => {
      const { connection, user, proof, facts, t } = await proofContext(request, t0);
      const check = await checkCurrentPassword(ctx, user, single(request.body ?? {}, 'password') ?? '', request.ip);
      if (check.kind !== 'right') {
        const { status, message } = passwordRefusal(reply, t, check);
        return page(reply, t, status, await shown(request.query.proof, connection, user), message);
      }
      return link(request, reply, proof, connection, user, facts, ['pwd']);
    }),
  );

  await app.register(connectionLinkPasskeyRoutes, opts);
}
