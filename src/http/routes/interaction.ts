// The sign-in and consent pages of a pending authorization request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InteractionError, loadInteraction, sessionIsFreshEnough, type Interaction } from '../../domain/authorize.js';
import { loadClient } from '../../domain/clients.js';
import type { ProviderContext } from '../../domain/context.js';
import { afterSignIn, answerConsent } from '../../domain/interaction.js';
import { single, type RawParams } from '../../domain/params.js';
import { signInWithPassword, type PasswordSignIn } from '../../domain/password-sign-in.js';
import { safeEqual } from '../../domain/secrets.js';
import type { DeviceSignals } from '../../domain/risk/signals.js';
import { beginSecondFactor } from '../../domain/second-factor.js';
import { resolveSession } from '../../domain/sessions.js';
import { completeSignIn } from '../../domain/sign-in-completion.js';
import type { ActiveSession } from '../../storage/sessions.js';
import { sendAuthorizationResponse } from '../authorization-response.js';
import { TemporarilyUnavailable } from '../../errors/oauth-error.js';
import { challengeCookie, interactionCookie, sessionCookie } from '../cookies.js';
import { deviceSignalsOf, ensureDeviceCookie, setDeviceCookie } from '../device-signals.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { consentPage, errorPage, LOGIN_PAGE_HEADERS, loginPage } from '../views/pages.js';

const WRONG_CREDENTIALS = 'The username or password is not correct.';

export type Refusal = Exclude<PasswordSignIn, { kind: 'signed-in' } | { kind: 'challenge' }> | { kind: 'busy' };

/** What the sign-in page says, and with which status, when an attempt does not sign in (also the account page's). */
export function refusal(outcome: Refusal): { status: number; message: string; retryAfter?: number } {
  switch (outcome.kind) {
    case 'wrong-credentials':
      return { status: 401, message: WRONG_CREDENTIALS };
    case 'throttled': {
      // RFC 6585 4: 429 Too Many Requests, "MAY include a Retry-After header indicating how long to wait".
      const n = outcome.retryAfterSeconds;
      return { status: 429, message: `Too many attempts. Try again in ${n} second${n === 1 ? '' : 's'}.`, retryAfter: n };
    }
    case 'busy':
      return { status: 503, message: 'The service is busy. Try again in a few seconds.', retryAfter: 1 };
  }
}

interface Params {
  id: string;
}

const paramsSchema = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } },
  required: ['id'],
} as const;

const formSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    login: { type: 'string' },
    password: { type: 'string' },
    decision: { type: 'string', enum: ['allow', 'deny'] },
  },
} as const;

export default async function interactionRoutes(app: FastifyInstance, opts: { ctx: ProviderContext; onMessagesQueued?: () => void }) {
  const { ctx } = opts;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const loginPageReply = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(LOGIN_PAGE_HEADERS).send(body);
  const action = (id: string, step: string) => `${ctx.config.issuer}/interaction/${id}/${step}`;

  /** The interaction of this browser; for form posts the CSRF field must equal the binding cookie too. */
  async function interactionOf(request: FastifyRequest<{ Params: Params }>, form?: RawParams): Promise<{ interaction: Interaction; binding: string }> {
    const binding = request.cookies[interactionCookie(ctx.config, request.params.id).name];
    if (form) {
      const csrf = single(form, 'csrf');
      if (!binding || !csrf || !safeEqual(csrf, binding)) {
        throw new InteractionError('The form has expired or did not come from this site. Go back to the application and start again.');
      }
    }
    return { interaction: await loadInteraction(ctx, request.params.id, binding), binding: binding ?? '' };
  }

  async function clientName(clientId: string): Promise<string> {
    const client = await loadClient(ctx.db, clientId);
    return client?.clientName ?? clientId;
  }

  /** The browser's session, unless prompt=login or max_age asked for a more recent sign-in. */
  async function usableSession(request: FastifyRequest, interaction: Interaction): Promise<ActiveSession | undefined> {
    const session = await resolveSession(ctx, request.cookies[sessionCookie(ctx.config).name]);
    const minAuthTime = interaction.minAuthTime === null ? null : new Date(interaction.minAuthTime);
    return session && sessionIsFreshEnough(session, minAuthTime) ? session : undefined;
  }

  const clearBinding = (reply: FastifyReply, interactionId: string) => {
    const cookie = interactionCookie(ctx.config, interactionId);
    reply.clearCookie(cookie.name, cookie.options);
  };

  /** A busy process answers like a refused attempt: on the sign-in page, which the person can submit again. */
  async function attemptSignIn(login: string, password: string, signals: DeviceSignals): Promise<PasswordSignIn | { kind: 'busy' }> {
    try {
      return await signInWithPassword(ctx, login, password, signals);
    } catch (err) {
      if (err instanceof TemporarilyUnavailable) return { kind: 'busy' };
      throw err;
    }
  }

  const seeOther = (reply: FastifyReply, location: string) =>
    reply.code(303).header('location', location).header('cache-control', 'no-store').send();

  /** Signed in: back to the client when consent is already there, else the consent page (after a form post, via a GET). */
  async function proceed(reply: FastifyReply, interaction: Interaction, binding: string, session: ActiveSession, afterPost: boolean) {
    const next = await afterSignIn(ctx, interaction, session);
    if (next.kind === 'respond') {
      clearBinding(reply, interaction.id);
      return sendAuthorizationResponse(reply, next.response);
    }
    if (afterPost) return seeOther(reply, `${ctx.config.issuer}/interaction/${interaction.id}`);
    return page(reply, 200, consentPage({
      action: action(interaction.id, 'consent'),
      csrfToken: binding,
      clientName: await clientName(interaction.request.clientId),
      scopes: interaction.request.scopes,
    }));
  }

  const withPageErrors = <R extends FastifyRequest<{ Params: Params }>>(handler: (request: R, reply: FastifyReply) => Promise<unknown>) =>
    async (request: R, reply: FastifyReply) => {
      try {
        return await handler(request, reply);
      } catch (err) {
        if (err instanceof InteractionError) return page(reply, 400, errorPage(err.message));
        throw err;
      }
    };

  app.get<{ Params: Params }>('/interaction/:id', { schema: { params: paramsSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request);
      const session = await usableSession(request, interaction);
      if (session) return proceed(reply, interaction, binding, session, false);
      ensureDeviceCookie(request, reply, ctx.config);
      return loginPageReply(reply, 200, loginPage({
        action: action(interaction.id, 'login'),
        csrfToken: binding,
        clientName: await clientName(interaction.request.clientId),
        login: interaction.request.loginHint ?? undefined,
      }));
    }));

  app.post<{ Params: Params; Body: RawParams }>('/interaction/:id/login', { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request, request.body);
      const login = single(request.body, 'login') ?? '';
      const password = single(request.body, 'password') ?? '';
      const outcome = await attemptSignIn(login, password, deviceSignalsOf(request, ctx.config, request.body));
      const clientId = interaction.request.clientId;
      if (outcome.kind === 'challenge') {
        // A second factor first; the code page sends the browser back here, signed in.
        const challengeId = await beginSecondFactor(ctx, outcome, `${ctx.config.issuer}/interaction/${interaction.id}`, clientId);
        opts.onMessagesQueued?.();
        const cookie = challengeCookie(ctx.config);
        reply.setCookie(cookie.name, challengeId, cookie.options);
        return seeOther(reply, `${ctx.config.issuer}/sign-in/verify`);
      }
      if (outcome.kind !== 'signed-in') {
        const { status, message, retryAfter } = refusal(outcome);
        if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
        return loginPageReply(reply, status, loginPage({
          action: action(interaction.id, 'login'),
          csrfToken: binding,
          clientName: await clientName(interaction.request.clientId),
          login,
          error: message,
        }));
      }
      const created = await completeSignIn(ctx, { ...outcome, amr: ['pwd'], clientId });
      opts.onMessagesQueued?.();
      const cookie = sessionCookie(ctx.config);
      reply.setCookie(cookie.name, created.cookie, cookie.options);
      if (created.newDeviceCookie) setDeviceCookie(reply, ctx.config, created.newDeviceCookie);
      return proceed(reply, interaction, binding, created.session, true);
    }));

  app.post<{ Params: Params; Body: RawParams }>('/interaction/:id/consent', { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction } = await interactionOf(request, request.body);
      const session = await usableSession(request, interaction);
      if (!session) throw new InteractionError('You are no longer signed in. Go back to the application and start again.');
      const response = await answerConsent(ctx, interaction, session, single(request.body, 'decision') === 'allow');
      clearBinding(reply, interaction.id);
      return sendAuthorizationResponse(reply, response);
    }));
}
