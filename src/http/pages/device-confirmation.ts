// GET/POST /device/confirm and POST /device/login (RFC 8628 3.3): the request whose code this browser typed, a
// sign-in first when there is no session (or none with the second factor the client requires), then the person's
// approval or denial.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { meetsMfaRequirement } from '../../domain/accounts/second-factor-policy.js';
import { resolveSession, type ActiveSession } from '../../domain/accounts/sessions.js';
import { accountName, decideDeviceAuthorization, type PendingDeviceAuthorization } from '../../domain/device-flow/device-authorization.js';
import { single, type RawParams } from '../../domain/params.js';
import { sessionCookie } from '../cookies.js';
import { seeOther } from '../redirect.js';
import type { PageText } from '../views/layout.js';
import {
  deviceVerificationKit,
  formSchema,
  START_AGAIN,
  VerificationError,
  type DeviceVerificationOptions,
} from './device-verification-kit.js';
import { ensureDeviceCookie } from './device-signals.js';
import { submitPasswordForm, typedLogin } from './password-form.js';
import { deviceConfirmPage, deviceDonePage } from './views/device-pages.js';
import { deviceNotInGroupPage } from './views/group-pages.js';

export default async function deviceConfirmationRoutes(app: FastifyInstance, opts: DeviceVerificationOptions) {
  const { ctx } = opts;
  const { confirmAction, page, flowSecret, clearFlowSecret, postedSecret, pendingFor, language, signInPage, withPageErrors } =
    deviceVerificationKit(ctx);

  const sessionOf = (request: FastifyRequest) => resolveSession(ctx, request.cookies[sessionCookie(ctx.config).name]);

  /** The confirmation page: the client, the device, the scopes, and who approves. */
  async function confirmPage(
    reply: FastifyReply,
    t: PageText,
    secret: string,
    pending: PendingDeviceAuthorization,
    session: ActiveSession,
  ) {
    const body = deviceConfirmPage(t, {
      action: confirmAction,
      csrfToken: secret,
      clientName: pending.clientName,
      selfRegistered: pending.selfRegistered,
      deviceLabel: pending.deviceLabel,
      requestedAt: pending.requestedAt,
      now: ctx.clock(),
      userName: await accountName(ctx, session.userId),
      scopes: pending.scopes,
      apiScopes: pending.apiScopes,
    });
    return page(reply, 200, body);
  }

  /** The approval or denial the form posted ('device.choose' when neither). */
  function decisionOf(body: RawParams): boolean {
    const decision = single(body, 'decision');
    if (decision === undefined) throw new VerificationError('device.choose');
    return decision === 'approve';
  }

  // The request this browser typed the code of: a sign-in first when there is no session, else the confirmation.
  app.get(
    '/device/confirm',
    { config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = flowSecret(request);
      if (!secret) throw new VerificationError(START_AGAIN);
      const pending = await pendingFor(secret);
      const session = await sessionOf(request);
      const t = language(request);
      // A client that requires a second factor takes only a session that had one; else a sign-in first, with one.
      if (!session || !meetsMfaRequirement(session.amr, pending.requireMfa)) {
        ensureDeviceCookie(request, reply, ctx.config);
        return signInPage(reply, t, 200, secret, pending);
      }
      return confirmPage(reply, t, secret, pending, session);
    }),
  );

  app.post<{ Body: RawParams }>(
    '/device/login',
    { schema: { body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = postedSecret(request);
      const pending = await pendingFor(secret);
      const t = language(request);
      const result = await submitPasswordForm(ctx, request, reply, {
        returnTo: confirmAction,
        clientId: pending.clientId,
        locale: t.preferred,
        requireMfa: pending.requireMfa,
        onMessagesQueued: opts.onMessagesQueued,
      });
      if (result.kind === 'answered') return reply;
      if (result.kind === 'refused') {
        return signInPage(reply, t, result.status, secret, pending, typedLogin(request.body), t.text(result.message));
      }
      return seeOther(reply, confirmAction);
    }),
  );

  app.post<{ Body: RawParams }>(
    '/device/confirm',
    { schema: { body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = postedSecret(request);
      const session = await sessionOf(request);
      // Signed out in the meantime (or, for a client that requires one, without a second factor): the confirmation
      // page asks for a sign-in again.
      if (!session || !meetsMfaRequirement(session.amr, (await pendingFor(secret)).requireMfa)) return seeOther(reply, confirmAction);
      const approve = decisionOf(request.body);
      const decided = await decideDeviceAuthorization(ctx, secret, session, approve);
      if (decided === undefined) throw new VerificationError(START_AGAIN);
      clearFlowSecret(reply);
      if (decided.kind === 'refused') return page(reply, 403, deviceNotInGroupPage(language(request), decided.clientName));
      return page(reply, 200, deviceDonePage(language(request), approve));
    }),
  );
}
