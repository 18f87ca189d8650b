// The sign-in and consent pages of a pending authorization request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  InteractionError,
  interactionLocale,
  loadInteraction,
  sessionIsFreshEnough,
  type Interaction,
} from '../../domain/authorization/authorize.js';
import { loadClient, type ClientLinks } from '../../domain/clients/clients.js';
import type { ProviderContext } from '../../domain/context.js';
import { afterSignIn, answerConsent } from '../../domain/authorization/interaction.js';
import { usernameOf } from '../../domain/accounts/users.js';
import { single, type RawParams } from '../../domain/params.js';
import { safeEqual } from '../../domain/secrets.js';
import { resolveSession } from '../../domain/accounts/sessions.js';
import type { ActiveSession } from '../../domain/accounts/sessions.js';
import { sendAuthorizationResponse } from '../authorization-response.js';
import { interactionCookie, sessionCookie } from '../cookies.js';
import { ensureDeviceCookie } from './device-signals.js';
import { pageErrors } from './page-errors.js';
import { submitPasswordForm, typedLogin } from './password-form.js';
import { passkeyRequestOptions, signInWithPasskey } from '../../domain/accounts/passkey-sign-in.js';
import { MAX_PASSKEY_RESPONSE_LENGTH, passkeysOffered } from '../../domain/accounts/passkey-ceremony.js';
import { deviceSignalsOf } from './device-signals.js';
import {
  PASSKEY_REFUSED,
  postedCredential,
  sendPasskeyError,
  sendPasskeyOptions,
  setSignInCookies,
  UNREADABLE_PASSKEY,
} from './passkey-form.js';
import { seeOther } from '../redirect.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { connectionButtonsFor, hintedUpstream } from './upstream-redirect.js';
import { pageLanguage } from '../page-language.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { consentPage, LOGIN_PAGE_HEADERS, loginPage } from '../views/pages.js';
import { notInGroupPage } from './views/group-pages.js';

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
    credential: { type: 'string', maxLength: MAX_PASSKEY_RESPONSE_LENGTH },
  },
} as const;

const NO_LINKS: ClientLinks = { logoUri: null, clientUri: null, policyUri: null, tosUri: null };

export default async function interactionRoutes(
  app: FastifyInstance,
  opts: { ctx: ProviderContext; onMessagesQueued?: () => void; upstream?: UpstreamDirectory },
) {
  const { ctx } = opts;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const loginPageReply = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(LOGIN_PAGE_HEADERS).send(body);
  const action = (id: string, step: string) => `${ctx.config.issuer}/interaction/${id}/${step}`;
  const forgotUrl = (id: string) => `${ctx.config.issuer}/account/forgot?interaction=${id}`;
  const signupUrl = (id: string) =>
    ctx.config.signup.mode === 'open' ? `${ctx.config.issuer}/account/signup?interaction=${id}` : undefined;
  const passkeyForm = (id: string) =>
    passkeysOffered(ctx) ? { optionsUrl: action(id, 'passkey/options'), action: action(id, 'passkey') } : undefined;

  /** The interaction of this browser; for form posts the CSRF field must equal the binding cookie too. */
  async function interactionOf(
    request: FastifyRequest<{ Params: Params }>,
    form?: RawParams,
  ): Promise<{ interaction: Interaction; binding: string }> {
    const binding = request.cookies[interactionCookie(ctx.config, request.params.id).name];
    if (form) {
      const csrf = single(form, 'csrf');
      if (!binding || !csrf || !safeEqual(csrf, binding)) {
        throw new InteractionError('interaction.formExpired');
      }
    }
    return { interaction: await loadInteraction(ctx, request.params.id, binding), binding: binding ?? '' };
  }

  /**
   * How the pages name the client, whether it registered itself (then they say it is not verified), and the links it
   * registered (RFC 7591 2), which the consent page shows.
   */
  async function clientShown(clientId: string): Promise<{ clientName: string; selfRegistered: boolean; links: ClientLinks }> {
    const client = await loadClient(ctx.db, ctx.log, clientId);
    return {
      clientName: client?.clientName ?? clientId,
      selfRegistered: client?.selfRegistered ?? false,
      links: client?.links ?? NO_LINKS,
    };
  }

  async function clientName(clientId: string): Promise<string> {
    return (await clientShown(clientId)).clientName;
  }

  /** The browser's session, unless prompt=login or max_age asked for a more recent sign-in. */
  async function usableSession(request: FastifyRequest, interaction: Interaction): Promise<ActiveSession | undefined> {
    const session = await resolveSession(ctx, request.cookies[sessionCookie(ctx.config).name]);
    const minAuthTime = interaction.minAuthTime === null ? null : new Date(interaction.minAuthTime);
    return session && sessionIsFreshEnough(session, minAuthTime, interaction.requireMfa) ? session : undefined;
  }

  /** The pages of an interaction speak the ui_locales of its authorization request, else the browser's language. */
  const language = (request: FastifyRequest, interaction?: Interaction) => pageLanguage(request, ctx.config, interaction?.request.uiLocale);
  /** An interaction that cannot go on (expired, another browser's) still says so in its ui_locales, when it has some. */
  const errorLanguage = async (request: FastifyRequest<{ Params: Params }>) =>
    pageLanguage(request, ctx.config, await interactionLocale(ctx, request.params.id));

  const clearBinding = (reply: FastifyReply, interactionId: string) => {
    const cookie = interactionCookie(ctx.config, interactionId);
    reply.clearCookie(cookie.name, cookie.options);
  };

  /** Signed in: back to the client when consent is already there, else the consent page (after a form post, via a GET). */
  async function proceed(
    reply: FastifyReply,
    t: PageText,
    interaction: Interaction,
    binding: string,
    session: ActiveSession,
    afterPost: boolean,
  ) {
    const next = await afterSignIn(ctx, interaction, session);
    if (next.kind === 'respond') {
      clearBinding(reply, interaction.id);
      return sendAuthorizationResponse(reply, t, next.response);
    }
    if (next.kind === 'refused') {
      clearBinding(reply, interaction.id);
      return page(reply, 403, notInGroupPage(t, { clientName: await clientName(interaction.request.clientId), response: next.response }));
    }
    if (afterPost) return seeOther(reply, `${ctx.config.issuer}/interaction/${interaction.id}`);
    const account = await usernameOf(ctx, session.userId);
    if (account === undefined) throw new InteractionError('interaction.signedOut');
    return page(
      reply,
      200,
      consentPage(t, {
        action: action(interaction.id, 'consent'),
        csrfToken: binding,
        ...(await clientShown(interaction.request.clientId)),
        redirectUri: interaction.request.redirectUri,
        scopes: interaction.request.scopes,
        apiScopes: interaction.request.apiScopes,
        account,
      }),
    );
  }

  const withPageErrors = pageErrors<FastifyRequest<{ Params: Params }>>({
    isRefusal: (err) => err instanceof InteractionError,
    language: errorLanguage,
  });

  app.get<{ Params: Params }>(
    '/interaction/:id',
    { schema: { params: paramsSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request);
      const t = language(request, interaction);
      const session = await usableSession(request, interaction);
      if (session) return proceed(reply, t, interaction, binding, session, false);
      // Issue 19: idp_hint, or a login_hint in a connection's domains, goes straight to that upstream.
      const hinted = opts.upstream && (await hintedUpstream(ctx, opts.upstream, request, reply, interaction, t));
      if (hinted) return hinted;
      ensureDeviceCookie(request, reply, ctx.config);
      return loginPageReply(
        reply,
        200,
        loginPage(t, {
          action: action(interaction.id, 'login'),
          csrfToken: binding,
          clientName: await clientName(interaction.request.clientId),
          login: interaction.request.loginHint ?? undefined,
          forgotUrl: forgotUrl(interaction.id),
          signupUrl: signupUrl(interaction.id),
          passkey: passkeyForm(interaction.id),
          connections: await connectionButtonsFor(ctx, interaction.id, binding),
        }),
      );
    }),
  );

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/login',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request, request.body);
      const t = language(request, interaction);
      const login = typedLogin(request.body);
      const clientId = interaction.request.clientId;
      const result = await submitPasswordForm(ctx, request, reply, {
        returnTo: `${ctx.config.issuer}/interaction/${interaction.id}`,
        clientId,
        locale: t.preferred,
        requireMfa: interaction.requireMfa,
        onMessagesQueued: opts.onMessagesQueued,
      });
      if (result.kind === 'answered') return reply;
      if (result.kind === 'refused') {
        return loginPageReply(
          reply,
          result.status,
          loginPage(t, {
            action: action(interaction.id, 'login'),
            csrfToken: binding,
            clientName: await clientName(clientId),
            login,
            error: t.text(result.message),
            forgotUrl: forgotUrl(interaction.id),
            signupUrl: signupUrl(interaction.id),
            passkey: passkeyForm(interaction.id),
            connections: await connectionButtonsFor(ctx, interaction.id, binding),
          }),
        );
      }
      return proceed(reply, t, interaction, binding, result.session, true);
    }),
  );

  // --- Passkeys (WebAuthn L3 §7.2): the options, bound to this interaction's cookie, and the assertion ---

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/passkey/options',
    { schema: { params: paramsSchema, body: formSchema } },
    async (request, reply) => {
      let binding: string;
      try {
        ({ binding } = await interactionOf(request, request.body));
      } catch (err) {
        if (err instanceof InteractionError) {
          return sendPasskeyError(reply, 403, 'invalid_request', (await errorLanguage(request))(err.key));
        }
        throw err;
      }
      return sendPasskeyOptions(reply, await passkeyRequestOptions(ctx, binding, 'sign-in'));
    },
  );

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/passkey',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request, request.body);
      const t = language(request, interaction);
      const refused = async (status: number, error: string) =>
        loginPageReply(
          reply,
          status,
          loginPage(t, {
            action: action(interaction.id, 'login'),
            csrfToken: binding,
            clientName: await clientName(interaction.request.clientId),
            error,
            passkey: passkeyForm(interaction.id),
            connections: await connectionButtonsFor(ctx, interaction.id, binding),
          }),
        );
      const credential = postedCredential(request.body);
      if (credential === undefined) return refused(400, t(UNREADABLE_PASSKEY));
      const result = await signInWithPasskey(ctx, {
        binding,
        credential,
        signals: deviceSignalsOf(request, ctx.config),
        clientId: interaction.request.clientId,
        replacesSession: request.cookies[sessionCookie(ctx.config).name],
        locale: t.preferred,
      });
      if (result.kind === 'malformed') return refused(400, t(UNREADABLE_PASSKEY));
      if (result.kind === 'throttled') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        return refused(429, t.plural('common.tooManyAttempts', result.retryAfterSeconds));
      }
      if (result.kind === 'refused') return refused(401, t(PASSKEY_REFUSED));
      setSignInCookies(ctx, reply, result.completed);
      return proceed(reply, t, interaction, binding, result.completed.session, true);
    }),
  );

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/consent',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction } = await interactionOf(request, request.body);
      const t = language(request, interaction);
      const session = await usableSession(request, interaction);
      if (!session) throw new InteractionError('interaction.signedOut');
      const response = await answerConsent(ctx, interaction, session, single(request.body, 'decision') === 'allow');
      clearBinding(reply, interaction.id);
      return sendAuthorizationResponse(reply, t, response);
    }),
  );
}
