// Issue 19: "only after the person proves they own the local account (its password or passkey)". The passkey
// answers a WebAuthn assertion (L3 §7.2) whose challenge is bound to the link proof and which only the account's own
// passkeys can answer (allowCredentials names them, and the check refuses another user's). User verification is
// required: the passkey stands in for the password, alone, as in a passkey sign-in (passkey-sign-in.ts). Counted
// per network before the signature check, like every passkey attempt.
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { passkeyAmr, passkeyRequestOptions, verifyPasskeyAssertion } from '../accounts/passkey-sign-in.js';
import { claimPasskeyAttempt, passkeyAttemptSucceeded } from '../accounts/passkey-throttle.js';
import type { ProviderContext } from '../context.js';
import { logSecurityEvent } from '../risk/security-events.js';

/** §5.5 options naming the account's passkeys, the challenge bound to the link proof (the secret in its URL). */
export function linkProofPasskeyOptions(
  ctx: ProviderContext,
  proof: string,
  userId: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return passkeyRequestOptions(ctx, proof, 'link-proof', userId);
}

export type LinkProofPasskeyCheck =
  { kind: 'proved'; amr: string[] } | { kind: 'malformed' } | { kind: 'refused' } | { kind: 'throttled'; retryAfterSeconds: number };

/** The assertion checked; `proved` carries the RFC 8176 values it stands for (hwk or swk, user, mfa). */
export async function proveWithPasskey(
  ctx: ProviderContext,
  input: { proof: string; userId: string; credential: unknown; ip: string },
): Promise<LinkProofPasskeyCheck> {
  const claim = await claimPasskeyAttempt(ctx, input.ip);
  if (claim.kind === 'throttled') return claim;
  const check = await verifyPasskeyAssertion(ctx, {
    binding: input.proof,
    purpose: 'link-proof',
    credential: input.credential,
    requireUserVerification: true,
    userId: input.userId,
  });
  if (check.kind !== 'verified') {
    logSecurityEvent(ctx, 'sign_in_failed', { method: 'passkey', reason: check.kind, purpose: 'link-proof' });
    return check.kind === 'malformed' ? check : { kind: 'refused' };
  }
  await passkeyAttemptSucceeded(ctx, claim);
  return { kind: 'proved', amr: passkeyAmr(check) };
}
