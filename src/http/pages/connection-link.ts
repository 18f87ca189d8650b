// GET and POST /connections/link?proof=...: an upstream account whose verified address is a local account's is linked
// to it only once the person proves the local account is theirs (issue 19): its password, checked and counted like
// the account page's current-password check, or one of its passkeys (POST /connections/link/passkey, its options
// from /connections/link/passkey/options; link-proof-passkey.ts). The proof is this browser's only (its upstream
// cookie) and used once; it travels in the query string, which the request log leaves out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkCurrentPassword } from '../../domain/accounts/current-password.js';
import { linkProven, signInFederated } from '../../domain/connections/federated-sign-in.js';
import { enabledConnection } from '../../domain/connections/connections.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { safeEqual } from '../../domain/secrets.js';
import { findUser, type User } from '../../domain/accounts/users.js';
import { liveLinkProof, useLinkProof, type LiveLinkProof } from '../../domain/connections/link-proofs.js';
import { sessionCookie, upstreamCookie } from '../cookies.js';
import { deviceSignalsOf } from './device-signals.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { PASSKEY_PAGE_HEADERS } from '../views/pages.js';
import { MAX_PASSKEY_RESPONSE_LENGTH, passkeysOffered } from '../../domain/accounts/passkey-ceremony.js';
import { linkProofPasskeyOptions, proveWithPasskey } from '../../domain/connections/link-proof-passkey.js';
import { hasPasskeys } from '../../domain/accounts/passkeys.js';
import { PASSKEY_REFUSED, postedCredential, sendPasskeyError, sendPasskeyOptions, UNREADABLE_PASSKEY } from './passkey-form.js';
import { linkProofPage } from '../views/connection-pages.js';
import { keepUpstreamTokens } from '../../domain/connections/upstream-tokens.js';
import { backToInteraction, languageOf, refusalPage, toSecondFactor } from './upstream-pages.js';
import { interactionFacts } from '../../domain/authorization/authorize.js';

const querySchema = {
  type: 'object',
  properties: { proof: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
  required: ['proof'],
} as const;

const formSchema = {
  type: 'object',
  properties: { password: { type: 'string' }, username: { type: 'string' } },
} as const;

const passkeyFormSchema = {
  type: 'object',
  properties: { csrf: { type: 'string', maxLength: 64 }, credential: { type: 'string', maxLength: MAX_PASSKEY_RESPONSE_LENGTH } },
} as const;

type LinkRequest = FastifyRequest<{ Querystring: { proof: string }; Body?: RawParams }>;

export default async function connectionLinkRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const action = (proof: string) => `${ctx.config.issuer}/connections/link?proof=${proof}`;

  /** The live proof of this browser, with its connection and user; an UpstreamRefusal (bad-state) otherwise. */
  async function proofOf(request: LinkRequest) {
    const proof = await liveLinkProof(ctx, request.query.proof, request.cookies[upstreamCookie(ctx.config).name]);
    if (!proof) throw new UpstreamRefusal('bad-state', "the link proof is unknown, used, expired or another browser's");
    const connection = await enabledConnection(ctx, proof.connectionId);
    const user = await findUser(ctx, proof.userId);
    if (!connection || !user || user.disabled_at !== null) throw new UpstreamRefusal('not-allowed', 'the connection or the user is gone');
    return { proof, connection, user };
  }

  function page(
    reply: FastifyReply,
    t: PageText,
    status: number,
    p: { proofId: string; provider: string; email: string; username: string; passkey: boolean },
    error?: string,
  ) {
    const passkeyForm = {
      optionsUrl: `${ctx.config.issuer}/connections/link/passkey/options?proof=${p.proofId}`,
      action: `${ctx.config.issuer}/connections/link/passkey?proof=${p.proofId}`,
    };
    return reply
      .code(status)
      .headers(p.passkey ? PASSKEY_PAGE_HEADERS : PAGE_HEADERS)
      .send(
        linkProofPage(t, {
          action: action(p.proofId),
          provider: p.provider,
          email: p.email,
          username: p.username,
          ...(error ? { error } : {}),
          // The proof doubles as the passkey form's CSRF field: it is this browser's, in the page's URL already.
          ...(p.passkey ? { passkey: { form: passkeyForm, csrfToken: p.proofId } } : {}),
        }),
      );
  }

  const withRefusals =
    (handler: (request: LinkRequest, reply: FastifyReply, t: PageText) => Promise<unknown>) =>
    async (request: LinkRequest, reply: FastifyReply) => {
      const t = languageOf(ctx, request, undefined);
      try {
        return await handler(request, reply, t);
      } catch (err) {
        if (err instanceof UpstreamRefusal) return refusalPage(request, reply, t, err, 'link');
        throw err;
      }
    };

  /** What the page shows; the passkey is offered when the account has one and the issuer can hold passkeys. */
  const shown = async (proofId: string, c: { displayName: string }, u: { id: string; email: string | null; username: string }) => ({
    proofId,
    provider: c.displayName,
    email: u.email ?? '',
    username: u.username,
    passkey: passkeysOffered(ctx) && (await hasPasskeys(ctx, u.id)),
  });

  app.get<{ Querystring: { proof: string } }>(
    '/connections/link',
    { schema: { querystring: querySchema }, config: { html: true } },
    withRefusals(async (request, reply, t) => {
      const { connection, user, proof } = await proofOf(request);
      const facts = await interactionFacts(ctx, proof.interactionId);
      return page(
        reply,
        facts.locale ? languageOf(ctx, request, facts.locale) : t,
        200,
        await shown(request.query.proof, connection, user),
      );
    }),
  );

  app.post<{ Querystring: { proof: string }; Body: RawParams }>(
    '/connections/link',
    { schema: { querystring: querySchema, body: formSchema }, config: { html: true } },
    withRefusals(async (request, reply, t0) => {
      const { connection, user, proof } = await proofOf(request);
      const facts = await interactionFacts(ctx, proof.interactionId);
      const t = facts.locale ? languageOf(ctx, request, facts.locale) : t0;
      const check = await checkCurrentPassword(ctx, user, single(request.body ?? {}, 'password') ?? '', request.ip);
      if (check.kind !== 'right') {
        if (check.kind === 'throttled') reply.header('retry-after', String(check.retryAfterSeconds));
        const status = check.kind === 'throttled' ? 429 : check.kind === 'busy' ? 503 : 401;
        const message =
          check.kind === 'throttled'
            ? t('common.tooManyAttempts.other', { count: check.retryAfterSeconds })
            : check.kind === 'busy'
              ? t('common.busy')
              : t('connections.wrongPassword');
        return page(reply, t, status, await shown(request.query.proof, connection, user), message);
      }
      return link(request, reply, proof, connection, user, facts, ['pwd']);
    }),
  );

  app.post<{ Querystring: { proof: string }; Body: RawParams }>(
    '/connections/link/passkey/options',
    { schema: { querystring: querySchema, body: passkeyFormSchema } },
    async (request, reply) => {
      const t = languageOf(ctx, request, undefined);
      const csrf = single(request.body ?? {}, 'csrf');
      if (!csrf || !safeEqual(csrf, request.query.proof))
        return sendPasskeyError(reply, 403, 'invalid_request', t('secondFactor.foreignForm'));
      try {
        const { user } = await proofOf(request);
        return sendPasskeyOptions(reply, await linkProofPasskeyOptions(ctx, request.query.proof, user.id));
      } catch (err) {
        if (err instanceof UpstreamRefusal) return sendPasskeyError(reply, 400, 'invalid_request', t('connections.badState'));
        throw err;
      }
    },
  );

  app.post<{ Querystring: { proof: string }; Body: RawParams }>(
    '/connections/link/passkey',
    { schema: { querystring: querySchema, body: passkeyFormSchema }, config: { html: true } },
    withRefusals(async (request, reply, t0) => {
      const { connection, user, proof } = await proofOf(request);
      const facts = await interactionFacts(ctx, proof.interactionId);
      const t = facts.locale ? languageOf(ctx, request, facts.locale) : t0;
      const csrf = single(request.body ?? {}, 'csrf');
      if (!csrf || !safeEqual(csrf, request.query.proof)) throw new UpstreamRefusal('bad-state', "the passkey form is not this proof's");
      const again = async (status: number, message: string) =>
        page(reply, t, status, await shown(request.query.proof, connection, user), message);
      const credential = postedCredential(request.body ?? {});
      if (credential === undefined) return again(400, t(UNREADABLE_PASSKEY));
      const check = await proveWithPasskey(ctx, { proof: request.query.proof, userId: user.id, credential, ip: request.ip });
      if (check.kind === 'throttled') {
        reply.header('retry-after', String(check.retryAfterSeconds));
        return again(429, t('common.tooManyAttempts.other', { count: check.retryAfterSeconds }));
      }
      if (check.kind === 'malformed') return again(400, t(UNREADABLE_PASSKEY));
      if (check.kind === 'refused') return again(401, t(PASSKEY_REFUSED));
      return link(request, reply, proof, connection, user, facts, check.amr);
    }),
  );

  async function link(
    request: LinkRequest,
    reply: FastifyReply,
    proof: LiveLinkProof,
    connection: NonNullable<Awaited<ReturnType<typeof enabledConnection>>>,
    user: User,
    facts: Awaited<ReturnType<typeof interactionFacts>>,
    /** RFC 8176 values of how the local account was proved: pwd, or the passkey's. */
    proved: string[],
  ) {
    if (!(await useLinkProof(ctx, request.query.proof))) throw new UpstreamRefusal('bad-state', 'the link proof was used');
    if (!(await linkProven(ctx, proof.connectionId, proof.subject, proof.userId)))
      throw new UpstreamRefusal('not-allowed', 'the upstream account was linked meanwhile');
    await keepUpstreamTokens(ctx, connection, proof.subject, proof.tokensSealed && { sealed: proof.tokensSealed });
    const result = await signInFederated(ctx, {
      connection,
      user,
      upstreamAmr: [],
      also: proved,
      signals: deviceSignalsOf(request, ctx.config),
      clientId: facts.clientId,
      returnTo: `${ctx.config.issuer}/interaction/${proof.interactionId}`,
      replacesSession: request.cookies[sessionCookie(ctx.config).name],
      locale: facts.locale,
      requireMfa: facts.requireMfa,
    });
    if (result.kind === 'refused') throw new UpstreamRefusal('not-allowed', 'the risk evaluation blocked the sign-in');
    if (result.kind === 'no-second-factor') throw new UpstreamRefusal('challenged', 'a second factor was asked for and the user has none');
    if (result.kind === 'challenge') return toSecondFactor(ctx, reply, result.challengeId);
    return backToInteraction(ctx, reply, result.completed, proof.interactionId);
  }
}
