// POST /account/devices/:id/revoke and /account/console-sessions/:id/end: the person ends a device's sessions, or a
// console session (issue 38: listed on the account page, so that one the person did not start is seen and ended).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { endOwnConsoleSession } from '../../../domain/console/console-sessions.js';
import type { RawParams } from '../../../domain/params.js';
import { revokeDevice } from '../../../domain/risk/devices.js';
import { sessionCookie } from '../../cookies.js';
import { seeOther } from '../../redirect.js';
import { accountErrorPage } from '../views/account-pages.js';
import { accountKit, formSchema, uuidParamsSchema, type AccountRoutesOptions } from './account-kit.js';

const deviceParamsSchema = {
  type: 'object',
  properties: { id: { type: 'string', maxLength: 64 } },
  required: ['id'],
} as const;

export default async function accountDeviceRoutes(app: FastifyInstance, opts: AccountRoutesOptions) {
  const { ctx } = opts;
  const { base, signInUrl, page, language, formPost } = accountKit(ctx);

  /** This browser's own session ended with the device: its cookie goes, and it is asked to sign in. */
  function signedOutHere(reply: FastifyReply) {
    const session = sessionCookie(ctx.config);
    reply.clearCookie(session.name, session.options);
    return seeOther(reply, `${signInUrl}?notice=device-revoked`);
  }

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/devices/:id/revoke',
    { schema: { params: deviceParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const revoked = await revokeDevice(ctx, who.user.id, request.params.id);
      // Another user's device is answered exactly like one that does not exist.
      if (!revoked) {
        const t = language(request);
        return page(reply, 404, accountErrorPage(t, base, t('account.noSuchDevice'), t('account.noSuchDeviceLead')));
      }
      if (revoked.logoutsQueued > 0) opts.onLogoutsQueued?.();
      if (revoked.endedSids.includes(who.session.sid)) return signedOutHere(reply);
      return seeOther(reply, `${base}?done=device-revoked`);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/console-sessions/:id/end',
    { schema: { params: uuidParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      // Another user's console session is answered like one that does not exist: the page again, unchanged.
      if (!(await endOwnConsoleSession(ctx, who.user.id, request.params.id))) return seeOther(reply, base);
      return seeOther(reply, `${base}?done=console-session-ended`);
    },
  );
}
