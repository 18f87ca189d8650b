// GET /connections/:id/callback: the redirect URI registered upstream ({issuer}/connections/{id}/callback). The state
// is used up, the code redeemed and the ID token verified (src/domain/connections/upstream-login.ts); then the
// upstream account signs in its linked user, is provisioned, is asked to prove it owns the local account with its
// verified address, or is refused (federated-sign-in.ts). A link the account page started is made for the user whose
// live session started it (account-links.ts). Each refusal is a page with its status.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { linkToSignedInUser } from '../../domain/connections/account-links.js';
import { accountForIdentity, signInFederated } from '../../domain/connections/federated-sign-in.js';
import { enabledConnection } from '../../domain/connections/connections.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import { finishUpstreamLogin } from '../../domain/connections/upstream-login.js';
import { keepUpstreamTokens, sealUpstreamTokens, type UpstreamTokens } from '../../domain/connections/upstream-tokens.js';
import type { UpstreamIdentity } from '../../domain/connections/upstream-identity.js';
import type { CounterClaim } from '../../domain/network-counter.js';
import { accountSession } from './account/account-session.js';
import { claimUpstreamCallback, upstreamCallbackSucceeded } from '../../domain/connections/upstream-throttle.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';
import type { ProviderContext } from '../../domain/context.js';
import { issueLinkProof } from '../../domain/connections/link-proofs.js';
import { sessionCookie, upstreamCookie } from '../cookies.js';
import { deviceSignalsOf } from './device-signals.js';
import { seeOther } from '../redirect.js';
import { backToInteraction, languageOf, refusalPage, toSecondFactor } from './upstream-pages.js';
import { interactionFacts } from '../../domain/authorization/authorize.js';
import { connectionIdParams } from './connection-params.js';

// RFC 6749 4.1.2 and 4.1.2.1, RFC 9207 2: the members of the response; a repeated one is not a string and is refused.
const querySchema = {
  type: 'object',
  properties: {
    state: { type: 'string', maxLength: 512 },
    code: { type: 'string', maxLength: 4096 },
    iss: { type: 'string', maxLength: 512 },
    error: { type: 'string', maxLength: 256 },
    error_description: { type: 'string', maxLength: 2048 },
  },
} as const;

interface Query {
  state?: string;
  code?: string;
  iss?: string;
  error?: string;
}

export default async function connectionCallbackRoutes(app: FastifyInstance, opts: { ctx: ProviderContext; directory: UpstreamDirectory }) {
  const { ctx, directory } = opts;
  const { signedIn } = accountSession(ctx);

  /**
   * Issue 19, "link another": the person proved the local account by being signed in, so the link is made only while
   * this browser still holds a live session of the user who started it; the upstream's address decides nothing.
   */
  async function linkForAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    connectionId: string,
    identity: UpstreamIdentity,
    tokens: UpstreamTokens | undefined,
    userId: string,
    claim: Extract<CounterClaim, { kind: 'claimed' }>,
  ): Promise<FastifyReply> {
    const who = await signedIn(request);
    if (!who || who.user.id !== userId)
      throw new UpstreamRefusal('session-ended', 'the browser is no longer signed in as the user who started the link');
    const outcome = await linkToSignedInUser(ctx, connectionId, identity.subject, userId);
    if (outcome === 'linked-elsewhere') throw new UpstreamRefusal('linked-elsewhere', 'the upstream account is linked to another user');
    // Only a connection that keeps them handed tokens over (upstream-login.ts).
    await keepUpstreamTokens(ctx, { id: connectionId, storeTokens: true }, identity.subject, tokens);
    await upstreamCallbackSucceeded(ctx, claim);
    return seeOther(reply, `${ctx.config.issuer}/account`);
  }

  /** The tokens sealed for the link a proof will make; they wait with it, and go with it when it expires. */
  async function sealedForProof(connectionId: string, subject: string, tokens: UpstreamTokens | undefined) {
    const sealed = tokens && (await sealUpstreamTokens(ctx, connectionId, subject, tokens));
    return sealed && { ...sealed };
  }

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/connections/:id/callback',
    { schema: { params: connectionIdParams, querystring: querySchema }, config: { html: true } },
    async (request: FastifyRequest<{ Params: { id: string }; Querystring: Query }>, reply: FastifyReply) => {
      const connectionId = request.params.id;
      let t = languageOf(ctx, request, undefined);
      const claim = await claimUpstreamCallback(ctx, request.ip);
      if (claim.kind === 'throttled') {
        // RFC 6585 4: 429 with Retry-After.
        reply.header('retry-after', String(claim.retryAfterSeconds));
        return reply
          .code(429)
          .headers(PAGE_HEADERS)
          .send(errorPage(t, t('common.tooManyAttempts.other', { count: claim.retryAfterSeconds })));
      }
      try {
        const connection = await enabledConnection(ctx, connectionId);
        if (!connection) throw new UpstreamRefusal('unknown-connection', `no enabled connection ${connectionId}`);
        const browserSecret = request.cookies[upstreamCookie(ctx.config).name];
        const { identity, purpose, tokens } = await finishUpstreamLogin(ctx, directory, {
          connection,
          params: request.query,
          browserSecret,
        });
        if (purpose.kind === 'link') return await linkForAccount(request, reply, connection.id, identity, tokens, purpose.userId, claim);
        const { interactionId } = purpose;
        const facts = await interactionFacts(ctx, interactionId);
        t = languageOf(ctx, request, facts.locale);
        const account = await accountForIdentity(ctx, connection, identity);
        // The upstream vouched for this person: the callback was no guess.
        await upstreamCallbackSucceeded(ctx, claim);
        if (account.kind === 'prove') {
          const proof = await issueLinkProof(ctx, browserSecret!, {
            connectionId: connection.id,
            subject: identity.subject,
            userId: account.user.id,
            interactionId,
            tokensSealed: await sealedForProof(connection.id, identity.subject, tokens),
          });
          return seeOther(reply, `${ctx.config.issuer}/connections/link?proof=${proof}`);
        }
        const result = await signInFederated(ctx, {
          connection,
          user: account.user,
          upstreamAmr: identity.amr,
          upstreamAcr: identity.acr,
          signals: deviceSignalsOf(request, ctx.config),
          clientId: facts.clientId,
          returnTo: `${ctx.config.issuer}/interaction/${interactionId}`,
          replacesSession: request.cookies[sessionCookie(ctx.config).name],
          locale: facts.locale,
          requireMfa: facts.requireMfa,
        });
        if (result.kind === 'refused') throw new UpstreamRefusal('not-allowed', 'the risk evaluation blocked the sign-in');
        if (result.kind === 'no-second-factor')
          throw new UpstreamRefusal('challenged', 'a second factor was asked for and the user has none');
        // The person signed in through the link (or is on their way to our second factor): its tokens are the latest.
        await keepUpstreamTokens(ctx, connection, identity.subject, tokens);
        if (result.kind === 'challenge') return toSecondFactor(ctx, reply, result.challengeId);
        return backToInteraction(ctx, reply, result.completed, interactionId);
      } catch (err) {
        if (err instanceof UpstreamRefusal) return refusalPage(request, reply, t, err, connectionId);
        throw err;
      }
    },
  );
}
