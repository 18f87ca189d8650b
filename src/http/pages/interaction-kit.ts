// What the sign-in and consent plugins of a pending authorization request share: the interaction of this browser,
// its language, the client as the pages name it, the sign-in form, and the step after a sign-in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession, type ActiveSession } from '../../domain/accounts/sessions.js';
import { usernameOf } from '../../domain/accounts/users.js';
import { MAX_PASSKEY_RESPONSE_LENGTH, passkeysOffered } from '../../domain/accounts/passkey-ceremony.js';
import {
  InteractionError,
  interactionLocale,
  loadInteraction,
  sessionIsFreshEnough,
  type Interaction,
} from '../../domain/authorization/authorize.js';
import { afterSignIn } from '../../domain/authorization/interaction.js';
import { loadClient, type ClientLinks } from '../../domain/clients/clients.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { safeEqual } from '../../domain/secrets.js';
import { sendAuthorizationResponse } from '../authorization-response.js';
import { interactionCookie, sessionCookie } from '../cookies.js';
import { pageLanguage, type PageLanguage } from '../page-language.js';
import { seeOther } from '../redirect.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { consentPage, LOGIN_PAGE_HEADERS, loginPage } from '../views/pages.js';
import { pageErrors } from './page-errors.js';
import { connectionButtonsFor } from './upstream-redirect.js';
import { notInGroupPage } from './views/group-pages.js';
import { organizationPickPage, organizationRefusedPage } from './views/organization-pages.js';

export interface InteractionRoutesOptions {
  ctx: ProviderContext;
  onMessagesQueued?: () => void;
  upstream?: UpstreamDirectory;
}

export interface Params {
  id: string;
}

export const paramsSchema = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } },
  required: ['id'],
} as const;

/** Every form of the sign-in and consent pages. */
export const formSchema = {
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

/** What the sign-in page shows besides its form: the typed login, the error, the links to reset and sign-up. */
export interface SignInExtra {
  login?: string;
  error?: string;
  forgotUrl?: string;
  signupUrl?: string;
}

export function interactionKit(ctx: ProviderContext) {
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const action = (id: string, step: string) => `${ctx.config.issuer}/interaction/${id}/${step}`;
  const passkeyForm = (id: string) =>
    passkeysOffered(ctx) ? { optionsUrl: action(id, 'passkey/options'), action: action(id, 'passkey') } : undefined;

  /** The links of the sign-in page to a password reset and, when sign-up is open, to sign up. */
  const accountLinks = (id: string) => ({
    forgotUrl: `${ctx.config.issuer}/account/forgot?interaction=${id}`,
    signupUrl: ctx.config.signup.mode === 'open' ? `${ctx.config.issuer}/account/signup?interaction=${id}` : undefined,
  });

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
  const language = (request: FastifyRequest, interaction?: Interaction): PageLanguage =>
    pageLanguage(request, ctx.config, interaction?.request.uiLocale);
  /** An interaction that cannot go on (expired, another browser's) still says so in its ui_locales, when it has some. */
  const errorLanguage = async (request: FastifyRequest<{ Params: Params }>) =>
    pageLanguage(request, ctx.config, await interactionLocale(ctx, request.params.id));

  const clearBinding = (reply: FastifyReply, interactionId: string) => {
    const cookie = interactionCookie(ctx.config, interactionId);
    reply.clearCookie(cookie.name, cookie.options);
  };

  /** The sign-in page of the interaction: password form, passkey, upstream connections, and `extra`. */
  async function signInPage(
    reply: FastifyReply,
    t: PageText,
    status: number,
    interaction: Interaction,
    binding: string,
    extra: SignInExtra,
  ) {
    const body = loginPage(t, {
      action: action(interaction.id, 'login'),
      csrfToken: binding,
      clientName: await clientName(interaction.request.clientId),
      ...extra,
      passkey: passkeyForm(interaction.id),
      connections: await connectionButtonsFor(ctx, interaction, binding),
    });
    return reply.code(status).headers(LOGIN_PAGE_HEADERS).send(body);
  }

  /** The consent page of the interaction, for the account signed in. */
  async function consent(reply: FastifyReply, t: PageText, interaction: Interaction, binding: string, session: ActiveSession) {
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
    // Issue 40: the organization's sign-in ends on a page (no response to the client), asks for a pick, or starts over
    // with the organization picked (its policies may ask for more of the sign-in).
    if (next.kind === 'organization-refused') {
      clearBinding(reply, interaction.id);
      return page(reply, 403, organizationRefusedPage(t, next.message));
    }
    if (next.kind === 'again') return seeOther(reply, `${ctx.config.issuer}/interaction/${interaction.id}`);
    if (afterPost) return seeOther(reply, `${ctx.config.issuer}/interaction/${interaction.id}`);
    if (next.kind === 'pick') {
      const shown = { action: action(interaction.id, 'organization'), csrfToken: binding, choices: next.choices };
      return page(reply, 200, organizationPickPage(t, { ...shown, clientName: await clientName(interaction.request.clientId) }));
    }
    return consent(reply, t, interaction, binding, session);
  }

  const withPageErrors = pageErrors<FastifyRequest<{ Params: Params }>>({
    isRefusal: (err) => err instanceof InteractionError,
    language: errorLanguage,
  });

  return {
    accountLinks,
    interactionOf,
    usableSession,
    language,
    errorLanguage,
    clearBinding,
    signInPage,
    proceed,
    withPageErrors,
  };
}
