// What follows once an upstream vouched for a person, whatever the protocol (the OAuth callback, the SAML ACS): a link
// the account page started is made for the user whose live session started it (account-links.ts); a sign-in signs in
// the linked user, provisions one, asks the person to prove the local account with the upstream's verified address,
// or is refused (federated-sign-in.ts). The arrival routes' shared steps: the callback throttle first, the protocol's
// own check, then the arrival; an UpstreamRefusal on the way is its page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { interactionFacts } from '../../domain/authorization/authorize.js';
import { linkToSignedInUser } from '../../domain/connections/account-links.js';
import type { Connection } from '../../domain/connections/connection.js';
import { accountForIdentity, signInFederated } from '../../domain/connections/federated-sign-in.js';
import { issueLinkProof } from '../../domain/connections/link-proofs.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { UpstreamIdentity } from '../../domain/connections/upstream-identity.js';
import type { UpstreamPurpose } from '../../domain/connections/upstream-login.js';
import { claimUpstreamCallback, upstreamCallbackSucceeded } from '../../domain/connections/upstream-throttle.js';
import { keepUpstreamTokens, sealUpstreamTokens, type UpstreamTokens } from '../../domain/connections/upstream-tokens.js';
import type { ProviderContext } from '../../domain/context.js';
import type { CounterClaim } from '../../domain/network-counter.js';
import { sessionCookie } from '../cookies.js';
import { seeOther } from '../redirect.js';
import { accountSession } from './account/account-session.js';
import { deviceSignalsOf } from './device-signals.js';
import { setSignInCookies } from './passkey-form.js';
import { backToInteraction, languageOf, refusalPage, toSecondFactor } from './upstream-pages.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { errorPage } from '../views/pages.js';

export interface Arrival {
  connection: Connection;
  identity: UpstreamIdentity;
  /** undefined: an IdP-initiated SAML sign-in the connection takes; it resumes no interaction and ends at the account page. */
  purpose: UpstreamPurpose | undefined;
  tokens: UpstreamTokens | undefined;
  browserSecret: string | undefined;
  claim: Extract<CounterClaim, { kind: 'claimed' }>;
  /** Set to the interaction's language once it is known, for the refusal page. */
  setLanguage(t: PageText): void;
}

/** What the protocol's own check of the upstream's answer yields (the OAuth callback's, the SAML ACS's). */
export type Vouched = Omit<Arrival, 'claim' | 'setLanguage'>;

/** An error the route's protocol turns into its own page (`t` the page language so far), or undefined to rethrow. */
export type OwnRefusal = (err: unknown, t: PageText) => FastifyReply | undefined;

export function upstreamArrival(ctx: ProviderContext) {
  const { signedIn } = accountSession(ctx);

  /**
   * Issue 19, "link another": the person proved the local account by being signed in, so the link is made only while
   * this browser still holds a live session of the user who started it; the upstream's address decides nothing.
   */
  async function linkForAccount(request: FastifyRequest, reply: FastifyReply, a: Arrival, userId: string): Promise<FastifyReply> {
    const who = await signedIn(request);
    if (!who || who.user.id !== userId)
      throw new UpstreamRefusal('session-ended', 'the browser is no longer signed in as the user who started the link');
    const outcome = await linkToSignedInUser(ctx, a.connection.id, a.identity.subject, userId);
    if (outcome === 'linked-elsewhere') throw new UpstreamRefusal('linked-elsewhere', 'the upstream account is linked to another user');
    // Only a connection that keeps them handed tokens over (upstream-login.ts).
    await keepUpstreamTokens(ctx, { id: a.connection.id, storeTokens: true }, a.identity.subject, a.tokens);
    await upstreamCallbackSucceeded(ctx, a.claim);
    return seeOther(reply, `${ctx.config.issuer}/account`);
  }

  /** The tokens sealed for the link a proof will make; they wait with it, and go with it when it expires. */
  async function sealedForProof(connectionId: string, subject: string, tokens: UpstreamTokens | undefined) {
    const sealed = tokens && (await sealUpstreamTokens(ctx, connectionId, subject, tokens));
    return sealed && { ...sealed };
  }

  async function arrive(request: FastifyRequest, reply: FastifyReply, a: Arrival): Promise<FastifyReply> {
    const { connection, identity, purpose, tokens } = a;
    if (purpose?.kind === 'link') return linkForAccount(request, reply, a, purpose.userId);
    const interactionId = purpose?.interactionId;
    const facts = interactionId === undefined ? undefined : await interactionFacts(ctx, interactionId);
    if (facts) a.setLanguage(languageOf(ctx, request, facts.locale));
    const account = await accountForIdentity(ctx, connection, identity);
    // The upstream vouched for this person: the callback was no guess.
    await upstreamCallbackSucceeded(ctx, a.claim);
    if (account.kind === 'prove') {
      // The proof resumes an interaction: an IdP-initiated sign-in has none to resume.
      if (interactionId === undefined || !a.browserSecret)
        throw new UpstreamRefusal('not-allowed', 'an unsolicited sign-in cannot prove a local account');
      const proof = await issueLinkProof(ctx, a.browserSecret, {
        connectionId: connection.id,
        subject: identity.subject,
        userId: account.user.id,
        interactionId,
        tokensSealed: await sealedForProof(connection.id, identity.subject, tokens),
      });
      return seeOther(reply, `${ctx.config.issuer}/connections/link?proof=${proof}`);
    }
    const returnTo = interactionId === undefined ? `${ctx.config.issuer}/account` : `${ctx.config.issuer}/interaction/${interactionId}`;
    const result = await signInFederated(ctx, {
      connection,
      user: account.user,
      upstreamAmr: identity.amr,
      upstreamAcr: identity.acr,
      signals: deviceSignalsOf(request, ctx.config),
      clientId: facts?.clientId ?? null,
      returnTo,
      replacesSession: request.cookies[sessionCookie(ctx.config).name],
      locale: facts?.locale,
      requireMfa: facts?.requireMfa ?? false,
    });
    if (result.kind === 'refused') throw new UpstreamRefusal('not-allowed', 'the risk evaluation blocked the sign-in');
    if (result.kind === 'no-second-factor') throw new UpstreamRefusal('challenged', 'a second factor was asked for and the user has none');
    // The person signed in through the link (or is on their way to our second factor): its tokens are the latest.
    await keepUpstreamTokens(ctx, connection, identity.subject, tokens);
    if (result.kind === 'challenge') return toSecondFactor(ctx, reply, result.challengeId);
    if (interactionId === undefined) {
      setSignInCookies(ctx, reply, result.completed);
      return seeOther(reply, returnTo);
    }
    return backToInteraction(ctx, reply, result.completed, interactionId);
  }

  /**
   * An arrival route top to bottom: the callback throttle (RFC 6585 4: 429 with Retry-After), `check` (the protocol's
   * verification of what the upstream sent), then the arrival; an UpstreamRefusal, or an error `ownRefusal` takes, is
   * a page with its status.
   */
  return async function arriveAfter(
    request: FastifyRequest,
    reply: FastifyReply,
    connectionId: string,
    check: () => Promise<Vouched>,
    ownRefusal?: OwnRefusal,
  ): Promise<FastifyReply> {
    let t = languageOf(ctx, request, undefined);
    const claim = await claimUpstreamCallback(ctx, request.ip);
    if (claim.kind === 'throttled') {
      reply.header('retry-after', String(claim.retryAfterSeconds));
      return reply
        .code(429)
        .headers(PAGE_HEADERS)
        .send(errorPage(t, t('common.tooManyAttempts.other', { count: claim.retryAfterSeconds })));
    }
    try {
      const vouched = await check();
      return await arrive(request, reply, { ...vouched, claim, setLanguage: (language) => (t = language) });
    } catch (err) {
      if (err instanceof UpstreamRefusal) return refusalPage(request, reply, t, err, connectionId);
      const page = ownRefusal?.(err, t);
      if (page) return page;
      throw err;
    }
  };
}
