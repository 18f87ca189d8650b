// What the link proof's plugins share (issue 19): the live proof of this browser with its connection, user and
// authorization request, the page that asks for the proof, its refusals, and the link made once the proof is given.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { linkProven, signInFederated } from '../../domain/connections/federated-sign-in.js';
import { enabledConnection } from '../../domain/connections/connections.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { passkeysOffered } from '../../domain/accounts/passkey-ceremony.js';
import { findUser, type User } from '../../domain/accounts/users.js';
import { liveLinkProof, useLinkProof, type LiveLinkProof } from '../../domain/connections/link-proofs.js';
import { sessionCookie, upstreamCookie } from '../cookies.js';
import { deviceSignalsOf } from './device-signals.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { PASSKEY_PAGE_HEADERS } from '../views/pages.js';
import { hasPasskeys } from '../../domain/accounts/passkeys.js';
import { linkProofPage } from '../views/connection-pages.js';
import { keepUpstreamTokens } from '../../domain/connections/upstream-tokens.js';
import { backToInteraction, languageOf, refusalPage, toSecondFactor } from './upstream-pages.js';
import { interactionFacts } from '../../domain/authorization/authorize.js';

export const querySchema = {
  type: 'object',
  properties: { proof: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
  required: ['proof'],
} as const;

export type LinkRequest = FastifyRequest<{ Querystring: { proof: string }; Body?: RawParams }>;

export function connectionLinkKit(ctx: ProviderContext) {
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

  /** The proof of this request with its connection, user and authorization request, and that request's language. */
  async function proofContext(request: LinkRequest, t0: PageText) {
    const { connection, user, proof } = await proofOf(request);
    const facts = await interactionFacts(ctx, proof.interactionId);
    const t = facts.locale ? languageOf(ctx, request, facts.locale) : t0;
    return { connection, user, proof, facts, t };
  }

  return { proofOf, proofContext, page, withRefusals, shown, link };
}
