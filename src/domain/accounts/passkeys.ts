// A user's passkeys on the account page: registering one (WebAuthn L3 §7.1, through @simplewebauthn/server), listing,
// renaming and deleting them. Deleting the last way to sign in is refused.
// Loaded on first use, not at start: @simplewebauthn/server and the X.509 and ASN.1 packages it brings are a sixth of
// the server bundle and about 0.1 s of every start (docs/benchmarks.md, "Start to ready"); scripts/build.ts keeps it out.
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import {
  countPasskeys,
  deletePasskey as deletePasskeyRow,
  insertPasskey,
  listPasskeys,
  lockPasskey,
  renamePasskey as renamePasskeyRow,
} from '../../storage/passkeys.js';
import type { PasskeyRow, UserRow } from '../../storage/schema.js';
import { findUserById } from '../../storage/users.js';
import type { ProviderContext } from '../context.js';
import { recordSecurityEvent } from '../risk/security-events.js';
import {
  challengeConsumer,
  issuePasskeyChallenge,
  knownTransports,
  PASSKEY_TIMEOUT_SECONDS,
  registrationResponseOf,
  relyingParty,
  userHandleOf,
} from './passkey-ceremony.js';

/** Passkeys one user may register: enough for every device they own, and a bound on the rows one account can add. */
export const MAX_PASSKEYS_PER_USER = 20;
export const MAX_PASSKEY_NAME_LENGTH = 64;

export interface Passkey {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** §6.1.3 backup state: a synced (multi-device) passkey. */
  synced: boolean;
}

function rowToPasskey(row: PasskeyRow): Passkey {
  return { id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at, synced: row.backed_up };
}

export async function passkeysOf(ctx: ProviderContext, userId: string): Promise<Passkey[]> {
  return (await listPasskeys(ctx.db, userId)).map(rowToPasskey);
}

/** A name as typed: trimmed, control characters dropped; undefined when nothing is left or it is too long. */
export function passkeyName(typed: string | undefined): string | undefined {
  // eslint-disable-next-line no-control-regex
  const name = (typed ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return name.length >= 1 && name.length <= MAX_PASSKEY_NAME_LENGTH ? name : undefined;
}

export type RegistrationOptions = { kind: 'options'; options: PublicKeyCredentialCreationOptionsJSON } | { kind: 'too-many' };

/**
 * WebAuthn L3 §5.4 options for a new discoverable credential (§5.4.6 residentKey "required": a passkey signs in
 * without a username), user verification preferred, no attestation (§5.4.7 "none": the provider trusts no
 * authenticator model over another), the user's existing credentials excluded (§5.4 excludeCredentials) so that one
 * authenticator is not registered twice. The challenge is bound to `binding`, the session cookie.
 */
export async function passkeyRegistrationOptions(ctx: ProviderContext, user: UserRow, binding: string): Promise<RegistrationOptions> {
  const existing = await listPasskeys(ctx.db, user.id);
  if (existing.length >= MAX_PASSKEYS_PER_USER) return { kind: 'too-many' };
  const rp = relyingParty(ctx);
  const claims = user.claims as { name?: unknown };
  const { generateRegistrationOptions } = await import('@simplewebauthn/server');
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userID: userHandleOf(user.id),
    userDisplayName: typeof claims.name === 'string' ? claims.name : user.username,
    challenge: await issuePasskeyChallenge(ctx, binding, 'registration', user.id),
    timeout: PASSKEY_TIMEOUT_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: knownTransports(p.transports) })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
  });
  return { kind: 'options', options };
}

export type Registration =
  | { kind: 'registered'; passkey: Passkey }
  /** Not JSON of a credential, or the verification refused it (origin, RP ID, challenge, signature, ...). */
  | { kind: 'refused' }
  /** The credential ID is registered already. */
  | { kind: 'duplicate' }
  | { kind: 'too-many' };

/**
 * WebAuthn L3 §7.1 "Registering a New Credential", every step through @simplewebauthn/server: the challenge is this
 * session's registration challenge (used up), the origin the issuer's, the RP ID hash the issuer host's, user presence
 * set. A refusal says nothing of why (its message may quote the response, which is never logged).
 */
export async function registerPasskey(
  ctx: ProviderContext,
  userId: string,
  binding: string,
  credential: unknown,
  name: string,
): Promise<Registration> {
  const response = registrationResponseOf(credential);
  if (!response) return { kind: 'refused' };
  const rp = relyingParty(ctx);
  const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challengeConsumer(ctx, binding, 'registration', userId),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    verified = { verified: false as const };
  }
  if (!verified.verified) {
    ctx.log.info({ event: 'passkey_registration_refused', userId }, 'passkey registration refused');
    return { kind: 'refused' };
  }
  const info = verified.registrationInfo;
  return ctx.db.transaction().execute(async (trx) => {
    if ((await countPasskeys(trx, userId)) >= MAX_PASSKEYS_PER_USER) return { kind: 'too-many' as const };
    const row = await insertPasskey(trx, {
      userId,
      credentialId: info.credential.id,
      publicKey: info.credential.publicKey,
      signCount: info.credential.counter,
      transports: info.credential.transports ?? response.response.transports ?? [],
      name,
      aaguid: info.aaguid,
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      createdAt: ctx.clock(),
    });
    if (!row) return { kind: 'duplicate' as const };
    await recordSecurityEvent(ctx, { type: 'passkey_added', userId, details: { passkey: row.id, synced: row.backed_up } }, trx);
    return { kind: 'registered' as const, passkey: rowToPasskey(row) };
  });
}

export async function renamePasskey(ctx: ProviderContext, userId: string, id: string, name: string): Promise<boolean> {
  return renamePasskeyRow(ctx.db, userId, id, name);
}

export type PasskeyDeletion = 'deleted' | 'not-found' | 'last-sign-in-method';

/**
 * A user keeps a way to sign in: a passkey goes unless it is the user's last one and they have no password. Every
 * user has a password today (users.password_hash is required); an empty hash is an account without one.
 */
export async function deletePasskey(ctx: ProviderContext, userId: string, id: string): Promise<PasskeyDeletion> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await lockPasskey(trx, userId, id);
    if (!row) return 'not-found';
    const user = await findUserById(trx, userId);
    if (!user) return 'not-found';
    if (!canDeletePasskey({ hasPassword: user.password_hash !== '', passkeys: await countPasskeys(trx, userId) })) {
      return 'last-sign-in-method';
    }
    await deletePasskeyRow(trx, userId, id);
    await recordSecurityEvent(ctx, { type: 'passkey_removed', userId, details: { passkey: id } }, trx);
    return 'deleted';
  });
}

/** The rule alone: deleting one of `passkeys` leaves a way to sign in. */
export function canDeletePasskey(methods: { hasPassword: boolean; passkeys: number }): boolean {
  return methods.hasPassword || methods.passkeys > 1;
}

/** Whether the user has registered a passkey (a page offers it as a way to prove who they are). */
export async function hasPasskeys(ctx: Pick<ProviderContext, 'db'>, userId: string): Promise<boolean> {
  return (await countPasskeys(ctx.db, userId)) > 0;
}
