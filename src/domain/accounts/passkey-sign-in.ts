// Signing in with a passkey (WebAuthn L3 §7.2, through @simplewebauthn/server): as the only step of a sign-in, where
// it is multi-factor by itself (a device the person holds, unlocked by them), or as the second factor a risk CHALLENGE
// asks of a password sign-in. A passkey sign-in goes through the same risk evaluation and completion as a password
// sign-in: a BLOCK refuses it, a CHALLENGE is already answered by the passkey.
import type { Locale } from '../../i18n/catalog.js';
// Loaded on first use, not at start (src/domain/accounts/passkeys.ts says why).
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { findPasskeyByCredentialId, listPasskeys, recordPasskeyUse } from '../../storage/passkeys.js';
import type { PasskeyPurpose } from '../../storage/passkey-challenges.js';
import type { PasskeyRow } from '../../storage/schema.js';
import { findUserById } from '../../storage/users.js';
import type { ProviderContext } from '../context.js';
import { logSecurityEvent, recordSecurityEvent } from '../risk/security-events.js';
import { emitWebhookEvent } from '../webhooks/emit.js';
import type { DeviceSignals } from '../risk/signals.js';
import { safeEqual } from '../secrets.js';
import {
  authenticationResponseOf,
  challengeConsumer,
  issuePasskeyChallenge,
  knownTransports,
  PASSKEY_TIMEOUT_SECONDS,
  relyingParty,
  userHandleOf,
} from './passkey-ceremony.js';
import { claimPasskeyAttempt, passkeyAttemptSucceeded } from './passkey-throttle.js';
import { verdictDetails } from './password-sign-in.js';
import { completeSignIn, type CompletedSignIn } from './sign-in-completion.js';
import { evaluateIdentifiedUser } from './identified-user-risk.js';

/**
 * §5.5 options for an assertion. A sign-in names no credential (allowCredentials empty: the authenticator offers the
 * discoverable credentials it holds for this RP ID, §5.5 and §6.2.2); a second factor names the user's own.
 * User verification is preferred (§5.5 userVerification), as the issue asks.
 */
export async function passkeyRequestOptions(
  ctx: ProviderContext,
  binding: string,
  purpose: Exclude<PasskeyPurpose, 'registration'>,
  userId: string | null = null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = userId === null ? [] : await listPasskeys(ctx.db, userId);
  const { generateAuthenticationOptions } = await import('@simplewebauthn/server');
  return generateAuthenticationOptions({
    rpID: relyingParty(ctx).id,
    challenge: await issuePasskeyChallenge(ctx, binding, purpose, null),
    timeout: PASSKEY_TIMEOUT_SECONDS * 1000,
    userVerification: 'preferred',
    allowCredentials: allow.map((p) => ({ id: p.credential_id, transports: knownTransports(p.transports) })),
  });
}

/** What an assertion proved. */
export interface VerifiedAssertion {
  passkey: PasskeyRow;
  /** §6.1 flag UV: the authenticator verified the person (PIN, biometrics). */
  userVerified: boolean;
  /** §6.1.3 flag BS: the credential is backed up (a synced, multi-device passkey). */
  backedUp: boolean;
}

export type AssertionCheck =
  | ({ kind: 'verified' } & VerifiedAssertion)
  /** Not the JSON of an assertion. */
  | { kind: 'malformed' }
  /** No passkey has this credential ID (or, for a second factor, not one of the user's). */
  | { kind: 'unknown-credential' }
  /** The verification refused it: challenge (unknown, used, expired, another browser's), origin, RP ID, signature, counter. */
  | { kind: 'refused' };

/**
 * WebAuthn L3 §7.2 "Verifying an Authentication Assertion". The credential is looked up by its ID (§7.2: "identify the
 * user ... credentialRecord"); a user handle, when the authenticator gives one, must be its owner's. Every other step
 * is @simplewebauthn/server's: type webauthn.get, the challenge (this binding's, used up by the check), the origin,
 * the RP ID hash, UP (and UV when asked), the signature over authenticatorData and the client data hash, and the
 * signature counter (§6.1.1: refused when either counter is non-zero and the new one is not greater). An accepted
 * assertion stores its counter only if no other assertion of the credential got in first.
 */
export async function verifyPasskeyAssertion(
  ctx: ProviderContext,
  input: {
    binding: string;
    purpose: Exclude<PasskeyPurpose, 'registration'>;
    credential: unknown;
    requireUserVerification: boolean;
    /** A second factor: only this user's passkeys answer. */
    userId?: string;
  },
): Promise<AssertionCheck> {
  const response = authenticationResponseOf(input.credential);
  if (!response) return { kind: 'malformed' };
  const passkey = await findPasskeyByCredentialId(ctx.db, response.id);
  if (!passkey || (input.userId !== undefined && passkey.user_id !== input.userId)) return { kind: 'unknown-credential' };
  const handle = response.response.userHandle;
  if (handle !== undefined && !safeEqual(handle, Buffer.from(userHandleOf(passkey.user_id)).toString('base64url'))) {
    return { kind: 'unknown-credential' };
  }
  const rp = relyingParty(ctx);
  const storedCount = Number(passkey.sign_count);
  const { verifyAuthenticationResponse } = await import('@simplewebauthn/server');
  let info;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challengeConsumer(ctx, input.binding, input.purpose, null),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(passkey.public_key), counter: storedCount },
      requireUserVerification: input.requireUserVerification,
    });
    if (!verified.verified) return { kind: 'refused' };
    info = verified.authenticationInfo;
  } catch {
    // The library's messages quote the response (its challenge, its origin): they are not logged.
    return { kind: 'refused' };
  }
  const stored = await recordPasskeyUse(ctx.db, {
    credentialId: passkey.credential_id,
    checkedCount: storedCount,
    newCount: info.newCounter,
    backedUp: info.credentialBackedUp,
    now: ctx.clock(),
  });
  if (!stored) return { kind: 'refused' };
  return { kind: 'verified', passkey, userVerified: info.userVerified, backedUp: info.credentialBackedUp };
}

/**
 * RFC 8176 2: `hwk` "Proof-of-Possession (PoP) of a hardware-secured key", or `swk` "... of a software-secured key"
 * for a backed-up passkey (§6.1.3 BS: its private key is synced between devices, not held by one piece of hardware);
 * `user` when the authenticator verified the person (§6.1 UV); `mfa` "Multiple-factor authentication".
 */
export function passkeyAmr(assertion: Pick<VerifiedAssertion, 'userVerified' | 'backedUp'>, before: readonly string[] = []): string[] {
  return [...before, assertion.backedUp ? 'swk' : 'hwk', ...(assertion.userVerified ? ['user'] : []), 'mfa'];
}

export type PasskeySignIn =
  | { kind: 'signed-in'; completed: CompletedSignIn; amr: string[] }
  | { kind: 'malformed' }
  /** Unknown credential, refused assertion, disabled user, or a BLOCK verdict: the page says the same for all. */
  | { kind: 'refused' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * A sign-in with a passkey alone. The assertion must carry user verification (a passkey with user presence only is
 * possession of a device, one factor, weaker than the password it replaces). Then the same risk evaluation as a
 * password sign-in, for the credential's user: a BLOCK refuses, a CHALLENGE is answered already (the passkey is the
 * second factor it would ask for), and the sign-in completes like any other.
 */
export async function signInWithPasskey(
  ctx: ProviderContext,
  input: {
    binding: string;
    credential: unknown;
    signals: DeviceSignals;
    clientId: string | null;
    replacesSession?: string | undefined;
    /** The sign-in page's language, remembered as the user's (sign-in-completion.ts). */
    locale?: Locale | undefined;
  },
): Promise<PasskeySignIn> {
  const claim = await claimPasskeyAttempt(ctx, input.signals.ip);
  if (claim.kind === 'throttled') {
    logSecurityEvent(ctx, 'sign_in_throttled', { retryAfterSeconds: claim.retryAfterSeconds, method: 'passkey' });
    return claim;
  }
  const check = await verifyPasskeyAssertion(ctx, {
    binding: input.binding,
    purpose: 'sign-in',
    credential: input.credential,
    requireUserVerification: true,
  });
  if (check.kind !== 'verified') {
    logSecurityEvent(ctx, 'sign_in_failed', { method: 'passkey', reason: check.kind });
    await emitWebhookEvent(ctx, ctx.db, 'sign_in.failed', { method: 'passkey', user_id: null, reason: check.kind });
    return check.kind === 'malformed' ? check : { kind: 'refused' };
  }
  await passkeyAttemptSucceeded(ctx, claim);
  const user = await findUserById(ctx.db, check.passkey.user_id);
  if (!user || user.disabled_at !== null) {
    logSecurityEvent(ctx, 'sign_in_failed', { method: 'passkey', reason: 'disabled' });
    await emitWebhookEvent(ctx, ctx.db, 'sign_in.failed', { method: 'passkey', user_id: user?.id ?? null, reason: 'disabled' });
    return { kind: 'refused' };
  }

  const { device, verdict, attemptId } = await evaluateIdentifiedUser(ctx, user, input.signals);
  if (verdict.action === 'BLOCK') {
    await recordSecurityEvent(ctx, {
      type: 'sign_in_blocked',
      userId: user.id,
      deviceId: verdict.device.id,
      clientId: input.clientId,
      details: { ...verdictDetails(verdict), method: 'passkey' },
    });
    return { kind: 'refused' };
  }
  const amr = passkeyAmr(check);
  const completed = await completeSignIn(ctx, {
    user,
    device,
    verdict,
    attemptId,
    amr,
    clientId: input.clientId,
    replacesSession: input.replacesSession,
    locale: input.locale,
  });
  return { kind: 'signed-in', completed, amr };
}
