// Who an upstream account is here (issue 19, "Accounts from upstream"), and its sign-in. A linked account signs its
// user in; an unlinked one is created, sent to prove it owns the local account with its address, or refused, as the
// connection's provisioning says. An upstream address the upstream does not call verified never links to, nor
// creates over, a local account with that address. The sign-in then goes through the risk evaluation and the one
// completion every sign-in shares (sign-in-completion.ts), with amr `fed` (RFC 8176 2).
import { randomUUID } from 'node:crypto';
import type { Locale } from '../../i18n/catalog.js';
import { findLink, insertLink, touchLink } from '../../storage/connections.js';
import type { UserRow } from '../../storage/schema.js';
import { findUserByEmail, findUserById, insertUserIfAbsent, updateUser } from '../../storage/users.js';
import { verdictDetails } from '../accounts/password-sign-in.js';
import { completeSignIn, type CompletedSignIn } from '../accounts/sign-in-completion.js';
import { evaluateIdentifiedUser } from '../accounts/identified-user-risk.js';
import { beginSecondFactor } from '../accounts/second-factor.js';
import { hasSecondFactor, meetsMfaRequirement } from '../accounts/second-factor-policy.js';
import { claimSignInAttempt } from '../accounts/sign-in-throttle.js';
import type { ProviderContext } from '../context.js';
import { logSecurityEvent, recordSecurityEvent } from '../risk/security-events.js';
import { emitUserEvent } from '../webhooks/emit.js';
import type { Db } from '../../storage/database.js';
import type { DeviceSignals } from '../risk/signals.js';
import { randomToken } from '../secrets.js';
import type { Connection } from './connection.js';
import { UpstreamRefusal } from './upstream-errors.js';
import type { UpstreamIdentity } from './upstream-identity.js';

export type UpstreamAccount =
  /** The user to sign in (linked before, or just created and linked). */
  | { kind: 'user'; user: UserRow }
  /** A local account has the upstream's verified address: the person proves it is theirs before it is linked. */
  | { kind: 'prove'; user: UserRow };

/** The local account of `identity` at `connection`; throws UpstreamRefusal when there is none it may have. */
export async function accountForIdentity(
  ctx: ProviderContext,
  connection: Connection,
  identity: UpstreamIdentity,
): Promise<UpstreamAccount> {
  const now = ctx.clock();
  const link = await findLink(ctx.db, connection.id, identity.subject);
  if (link) {
    const user = await findUserById(ctx.db, link.user_id);
    if (!user || user.disabled_at !== null) throw new UpstreamRefusal('not-allowed', 'the linked user is disabled');
    await touchLink(ctx.db, connection.id, identity.subject, now);
    return { kind: 'user', user: await withUpstreamGroups(ctx, user, identity, now) };
  }
  const local = identity.email === null ? undefined : await findUserByEmail(ctx.db, identity.email);
  if (local) {
    // Issue 19: "an upstream account must never take over a local one by claiming its address".
    if (!identity.emailVerified)
      throw new UpstreamRefusal('unverified-email', "the upstream address is a local account's and is not verified upstream");
    if (connection.provisioning === 'refuse') throw new UpstreamRefusal('not-allowed', 'the connection refuses unlinked accounts');
    return { kind: 'prove', user: local };
  }
  if (connection.provisioning !== 'create')
    throw new UpstreamRefusal(
      'not-allowed',
      `the connection ${connection.provisioning === 'link' ? 'only links' : 'refuses unlinked accounts'}`,
    );
  return { kind: 'user', user: await provision(ctx, connection, identity, now) };
}

/** The `groups` claim follows the upstream's mapped groups at each sign-in through a link that brings some. */
async function withUpstreamGroups(ctx: ProviderContext, user: UserRow, identity: UpstreamIdentity, now: Date): Promise<UserRow> {
  const claims = user.claims as Record<string, unknown>;
  if (identity.groups.length === 0 || JSON.stringify(claims.groups) === JSON.stringify(identity.groups)) return user;
  const updated = { ...claims, groups: identity.groups };
  await ctx.db.transaction().execute(async (trx: Db) => {
    await updateUser(trx, user.id, { claims: JSON.stringify(updated), updated_at: now });
    await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['groups'], via: 'connection' });
  });
  return { ...user, claims: updated, updated_at: now };
}

/** Just-in-time provisioning: a user from the mapped claims, under a username of its own, linked in one transaction. */
async function provision(ctx: ProviderContext, connection: Connection, identity: UpstreamIdentity, now: Date): Promise<UserRow> {
  // Nobody knows this password: the account signs in through its link (or after a password reset to its address).
  const passwordHash = await ctx.passwords.hash(randomToken());
  const claims: Record<string, unknown> = {
    ...(identity.name ? { name: identity.name } : {}),
    ...(identity.groups.length > 0 ? { groups: identity.groups } : {}),
  };
  const base = usernameBase(connection, identity);
  for (let attempt = 0; attempt < 20; attempt++) {
    const username = attempt === 0 ? base : attempt < 10 ? `${base}-${attempt + 1}` : `${base}-${randomToken(4).toLowerCase()}`;
    const id = randomUUID();
    const created = await ctx.db.transaction().execute(async (trx) => {
      const inserted = await insertUserIfAbsent(trx, {
        id,
        username,
        password_hash: passwordHash,
        // Only an address the upstream verified is kept: an unverified one would hold the address against its owner.
        email: identity.emailVerified ? identity.email : null,
        email_verified: identity.emailVerified && identity.email !== null,
        claims: JSON.stringify(claims),
        created_at: now,
        updated_at: now,
      });
      if (!inserted) return 'taken' as const;
      await emitUserEvent(
        ctx,
        trx,
        'user.created',
        { id, username, email: identity.emailVerified ? identity.email : null },
        { via: 'connection' },
      );
      if (!(await insertLink(trx, { connectionId: connection.id, subject: identity.subject, userId: id, now, provisioned: true })))
        return 'linked' as const;
      return 'created' as const;
    });
    if (created === 'created') {
      await recordSecurityEvent(ctx, { type: 'connection_linked', userId: id, details: { connection: connection.id, provisioned: true } });
      return (await findUserById(ctx.db, id))!;
    }
    if (created === 'linked') {
      // Another request linked this upstream account first (a double click): its user is the one.
      const link = await findLink(ctx.db, connection.id, identity.subject);
      const user = link && (await findUserById(ctx.db, link.user_id));
      if (user) return user;
    }
    // A verified address taken by now is another account's: it is proven, not taken over.
    if (identity.emailVerified && identity.email !== null && (await findUserByEmail(ctx.db, identity.email))) {
      throw new UpstreamRefusal('not-allowed', 'the address was taken while the account was made');
    }
  }
  throw new UpstreamRefusal('not-allowed', 'no free username for the upstream account');
}

/** The username to start from: the upstream's, else the address's local part, else the connection's name; safe characters only. */
function usernameBase(connection: Connection, identity: UpstreamIdentity): string {
  const raw = identity.username ?? identity.email?.split('@')[0] ?? identity.name ?? `${connection.id}-user`;
  const clean = raw
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return clean.length > 0 ? clean : `${connection.id}-user`;
}

/** Links after the person proved the local account is theirs; false when the upstream account was linked meanwhile. */
export async function linkProven(ctx: ProviderContext, connectionId: string, subject: string, userId: string): Promise<boolean> {
  const linked = await insertLink(ctx.db, { connectionId, subject, userId, now: ctx.clock() });
  if (linked)
    await recordSecurityEvent(ctx, { type: 'connection_linked', userId, details: { connection: connectionId, provisioned: false } });
  return linked;
}

export type FederatedSignIn =
  | { kind: 'signed-in'; completed: CompletedSignIn; amr: string[] }
  /** A BLOCK verdict, or the person's throttle is locked. */
  | { kind: 'refused' }
  /** A CHALLENGE verdict: our second factor first; the browser takes the challenge id to the code page. */
  | { kind: 'challenge'; challengeId: string }
  /**
   * A CHALLENGE verdict, or a client that requires a second factor (second-factor-policy.ts), for a user with no second
   * factor to answer with (no app, no passkey, no verified address).
   */
  | { kind: 'no-second-factor' };

/**
 * RFC 8176 2 `fed`: "Federated authentication"; the upstream's own amr values, and its acr, follow only for a
 * connection whose amr the admin trusts (trust_amr). The risk evaluation is the passkey sign-in's (passkey-sign-in.ts); a CHALLENGE
 * goes to our second factor (second-factor.ts), which then says `fed otp mfa` (or the passkey's values).
 */
export async function signInFederated(
  ctx: ProviderContext,
  input: {
    connection: Connection;
    user: UserRow;
    upstreamAmr: readonly string[];
    /** The upstream ID token's `acr`, when it has one. */
    upstreamAcr?: string | null;
    /** Other methods the person proved on the way (their password, to link). */
    also?: readonly string[];
    signals: DeviceSignals;
    clientId: string | null;
    /** Where the code page sends the browser once a second factor signed it in. */
    returnTo: string;
    replacesSession?: string | undefined;
    locale?: Locale | undefined;
    /** The client requires a second factor: one the upstream's trusted amr does not show is asked for here. */
    requireMfa?: boolean;
  },
): Promise<FederatedSignIn> {
  const { user } = input;
  if (user.disabled_at !== null) return { kind: 'refused' };
  const { device, verdict, attemptId, evaluationMs } = await evaluateIdentifiedUser(ctx, user, input.signals);
  const passedOn = input.connection.trustAmr ? input.upstreamAmr.filter((v) => v !== 'fed') : [];
  const amr = [...new Set(['fed', ...passedOn, ...(input.also ?? [])])];
  // OIDC Core 2 acr: the upstream's class of this authentication, believed only as its amr is (trust_amr).
  const acr = input.connection.trustAmr ? (input.upstreamAcr ?? null) : null;
  const details = { ...verdictDetails(verdict), method: 'fed', connection: input.connection.id };
  const blocked = () =>
    recordSecurityEvent(ctx, { type: 'sign_in_blocked', userId: user.id, deviceId: verdict.device.id, clientId: input.clientId, details });
  if (verdict.action === 'BLOCK') {
    await blocked();
    return { kind: 'refused' };
  }
  const challenged = verdict.action === 'CHALLENGE';
  if (challenged || !meetsMfaRequirement(amr, input.requireMfa ?? false)) {
    if (!(await hasSecondFactor(ctx, user))) {
      if (challenged) await blocked();
      return { kind: 'no-second-factor' };
    }
    // As for a password: the account's counter is settled only when the second factor passes, so that someone holding
    // the upstream account alone cannot start challenges without end.
    const claim = await claimSignInAttempt(ctx, user.username, input.signals.ip);
    if (claim.kind === 'throttled') {
      logSecurityEvent(ctx, 'sign_in_throttled', { retryAfterSeconds: claim.retryAfterSeconds, method: 'fed' });
      return { kind: 'refused' };
    }
    if (challenged)
      await recordSecurityEvent(ctx, {
        type: 'sign_in_challenged',
        userId: user.id,
        deviceId: verdict.device.id,
        clientId: input.clientId,
        details,
      });
    const challengeId = await beginSecondFactor(
      ctx,
      { user, verdict, device, attemptId, throttleClaim: claim, evaluationMs, addedMs: evaluationMs },
      input.returnTo,
      input.clientId,
      input.locale,
      amr,
      acr,
    );
    return { kind: 'challenge', challengeId };
  }
  const completed = await completeSignIn(ctx, {
    user,
    device,
    verdict,
    attemptId,
    amr,
    acr,
    clientId: input.clientId,
    replacesSession: input.replacesSession,
    locale: input.locale,
  });
  return { kind: 'signed-in', completed, amr };
}
