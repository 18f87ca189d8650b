// Invitations to an organization by email (issue 40): an admin invites an address with roles; the link mailed to it
// (a random token, only its SHA-256 digest kept) works once, until it expires, and only for a person signed in with
// that address, verified. Resending gives a new link (the old one is dead); revoking ends it. Accepting makes the
// person a member with the invitation's roles, membership source `invitation`.
import { randomUUID } from 'node:crypto';
import {
  acceptInvitationRow,
  findInvitation,
  findInvitationByTokenHash,
  findMembership,
  findOrganizationById,
  insertInvitation,
  insertMembership,
  listInvitationRows,
  renewInvitationRow,
  revokeInvitationRow,
  updateMembershipRoles,
} from '../../storage/organizations.js';
import { insertOutboxMessage } from '../../storage/outbox.js';
import type { Db } from '../../storage/database.js';
import type { OrganizationInvitationRow, OrganizationRow, UserRow } from '../../storage/schema.js';
import { findUserById } from '../../storage/users.js';
import { inAdminTransaction, logAdminAction, type AdminActor, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { isEmailAddress } from '../accounts/signup.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter, type CounterClaim } from '../network-counter.js';
import { randomToken, sha256 } from '../secrets.js';
import type { ThrottlePolicy } from '../../config/throttles.js';
import { checkedRoles } from './organization-admin.js';
import { organizationInScope } from './organization-scope.js';

/** How long an invitation's link works unless the admin says otherwise: 7 days, as Auth0's and Clerk's do. */
export const DEFAULT_INVITATION_DAYS = 7;
/** The longest an admin may make it work. */
export const MAX_INVITATION_DAYS = 30;

/**
 * The accept page's counter per client network, taken before the token is looked up: a link is 256 random bits, so
 * this is against a flood of requests, not guessing; 30 free, then locks from a minute growing to an hour.
 */
export const INVITATION_NETWORK_POLICY: ThrottlePolicy = Object.freeze({ freeAttempts: 30, lockBaseSeconds: 60, lockMaxSeconds: 3600 });

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  roles: string[];
  invitedBy: string;
  state: InvitationState;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: string | null;
  revokedAt: Date | null;
}

export function stateOf(row: OrganizationInvitationRow, now: Date): InvitationState {
  if (row.accepted_at) return 'accepted';
  if (row.revoked_at) return 'revoked';
  return row.expires_at.getTime() <= now.getTime() ? 'expired' : 'pending';
}

export const invitationOf = (row: OrganizationInvitationRow, now: Date): Invitation => ({
  id: row.id,
  organizationId: row.organization_id,
  email: row.email,
  roles: row.roles,
  invitedBy: row.invited_by,
  state: stateOf(row, now),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  acceptedAt: row.accepted_at,
  acceptedBy: row.accepted_by,
  revokedAt: row.revoked_at,
});

/** The invitation as the API and `--json` show it: never its token or digest. */
export const invitationJson = (i: Invitation) => ({
  id: i.id,
  organization_id: i.organizationId,
  email: i.email,
  roles: i.roles,
  invited_by: i.invitedBy,
  state: i.state,
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
  accepted_at: i.acceptedAt?.toISOString() ?? null,
  accepted_by: i.acceptedBy,
  revoked_at: i.revokedAt?.toISOString() ?? null,
});

/** Who invited, as recorded: `person:{user id}`, `client:{client id}`, `cli:{OS user}` or `system`. */
export function inviterOf(actor: AdminActor | undefined): string {
  switch (actor?.kind) {
    case 'person':
      return `person:${actor.userId}`;
    case 'client':
      return `client:${actor.clientId}`;
    case 'cli':
      return `cli:${actor.osUser}`;
    default:
      return 'system';
  }
}

/** The inviter as the mail and the page name them: a person's name (else username); null for anyone else (an admin). */
export async function inviterName(db: Db, invitedBy: string): Promise<string | null> {
  if (!invitedBy.startsWith('person:')) return null;
  const user = await findUserById(db, invitedBy.slice('person:'.length)).catch(() => undefined);
  if (!user) return null;
  const name = (user.claims as Record<string, unknown>).name;
  return typeof name === 'string' && name.trim() !== '' ? name : user.username;
}

/**
 * The two addresses are the same mailbox: compared whole, without regard to case. RFC 5321 2.4 lets a server treat
 * the local part as case-sensitive, but no mail system in use does, and the users table keeps addresses as typed.
 */
export const sameAddress = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The link the mail carries: {issuer}/invitations/{token}. */
export const invitationUrl = (issuer: string, token: string): string => `${issuer}/invitations/${token}`;

export interface InvitationInput {
  email: string;
  roles?: readonly string[];
  /** Whole days the link works; DEFAULT_INVITATION_DAYS when unset. */
  expiresInDays?: number;
}

async function queueMail(
  ctx: Pick<AdminContext, 'config'>,
  db: Db,
  org: OrganizationRow,
  row: Pick<OrganizationInvitationRow, 'email' | 'invited_by' | 'expires_at'>,
  token: string,
  now: Date,
): Promise<void> {
  const inviter = await inviterName(db, row.invited_by);
  // The payload (its link) is wiped once sent (src/storage/outbox.ts markMessageSent).
  await insertOutboxMessage(db, {
    userId: null,
    address: row.email,
    kind: 'organization-invitation',
    payload: {
      url: invitationUrl(ctx.config.issuer, token),
      organization: org.display_name,
      ...(inviter ? { inviter } : {}),
      expires: row.expires_at.toISOString(),
    },
    createdAt: now,
  });
}

function expiryDays(days: number | undefined): number {
  if (days === undefined) return DEFAULT_INVITATION_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_INVITATION_DAYS)
    throw new AdminError(`an invitation works for 1 to ${MAX_INVITATION_DAYS} whole days`);
  return days;
}

/** Invites the address to the organization: the invitation is recorded and its link mailed (the outbox). */
export async function createInvitation(ctx: AdminContext, ref: string, input: InvitationInput): Promise<Invitation> {
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  if (!isEmailAddress(email)) throw new AdminError(`"${String(input.email)}" is not an email address`);
  const days = expiryDays(input.expiresInDays);
  const org = await organizationInScope(ctx, ref);
  const roles = await checkedRoles(ctx, org.id, input.roles ?? []);
  const now = ctx.clock();
  const token = randomToken();
  const row: OrganizationInvitationRow = {
    id: randomUUID(),
    organization_id: org.id,
    email,
    roles,
    token_hash: sha256(token),
    invited_by: inviterOf(ctx.actor),
    created_at: now,
    expires_at: addSeconds(now, days * 86_400),
    accepted_at: null,
    accepted_by: null,
    revoked_at: null,
  };
  await inAdminTransaction(ctx, async (trx) => {
    await insertInvitation(trx, row);
    await queueMail(ctx, trx, org, row, token, now);
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.invitation_created',
      target: { type: 'organization', id: org.id },
      changes: { invitation: row.id, email, roles, expires_at: row.expires_at.toISOString() },
      log: { organizationId: org.id, invitationId: row.id },
      organizationId: org.id,
    });
  });
  return invitationOf(row, now);
}

/** The organization's invitations, newest first, in every state. */
export async function listInvitations(ctx: AdminContext, ref: string): Promise<Invitation[]> {
  const org = await organizationInScope(ctx, ref);
  const now = ctx.clock();
  return (await listInvitationRows(ctx.db, org.id)).map((r) => invitationOf(r, now));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function invitationInScope(ctx: AdminContext, org: OrganizationRow, id: string): Promise<OrganizationInvitationRow> {
  const row = UUID.test(id) ? await findInvitation(ctx.db, org.id, id.toLowerCase()) : undefined;
  if (!row) throw new AdminError(`the organization has no invitation "${id}"`, 'not_found');
  return row;
}

/**
 * Mails a new link: a new token and a new expiry replace the old ones in one statement, so the old link finds
 * nothing from then on. An accepted or revoked invitation is not resent (409); an expired one is.
 */
export async function resendInvitation(ctx: AdminContext, ref: string, id: string, expiresInDays?: number): Promise<Invitation> {
  const days = expiryDays(expiresInDays);
  const org = await organizationInScope(ctx, ref);
  const current = await invitationInScope(ctx, org, id);
  const now = ctx.clock();
  const token = randomToken();
  const row = await inAdminTransaction(ctx, async (trx) => {
    const renewed = await renewInvitationRow(trx, org.id, current.id, {
      tokenHash: sha256(token),
      expiresAt: addSeconds(now, days * 86_400),
    });
    if (!renewed) throw new AdminError(`the invitation was ${stateOf(current, now)} already`, 'conflict');
    await queueMail(ctx, trx, org, renewed, token, now);
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.invitation_resent',
      target: { type: 'organization', id: org.id },
      changes: { invitation: renewed.id, expires_at: renewed.expires_at.toISOString() },
      log: { organizationId: org.id, invitationId: renewed.id },
      organizationId: org.id,
    });
    return renewed;
  });
  return invitationOf(row, now);
}

/** Ends an invitation that is still open: its link stops working at once. */
export async function revokeInvitation(ctx: AdminContext, ref: string, id: string): Promise<Invitation> {
  const org = await organizationInScope(ctx, ref);
  const current = await invitationInScope(ctx, org, id);
  const now = ctx.clock();
  const row = await inAdminTransaction(ctx, async (trx) => {
    const revoked = await revokeInvitationRow(trx, org.id, current.id, now);
    if (!revoked) throw new AdminError(`the invitation was ${stateOf(current, now)} already`, 'conflict');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.invitation_revoked',
      target: { type: 'organization', id: org.id },
      changes: { invitation: revoked.id },
      log: { organizationId: org.id, invitationId: revoked.id },
      organizationId: org.id,
    });
    return revoked;
  });
  return invitationOf(row, now);
}

// --- the link ---

/** What the accept page shows of an open invitation. */
export interface OpenInvitation {
  id: string;
  email: string;
  roles: string[];
  organization: { id: string; slug: string; displayName: string };
  inviter: string | null;
  expiresAt: Date;
}

/** Counts one request to the accept page from this network, before anything is looked up. */
export function claimInvitationCounter(ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>, ip: string): Promise<CounterClaim> {
  return claimNetworkCounter(ctx, 'invitation-ip', ip, INVITATION_NETWORK_POLICY);
}

/** A token as the link carries it: randomToken's 43 base64url characters. Anything else finds nothing. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The open invitation the link's token names; undefined when it names none, or one accepted, revoked or expired
 * (the page says the same for all four).
 */
export async function openInvitation(
  ctx: Pick<ProviderContext, 'db' | 'clock'>,
  token: string | undefined,
): Promise<OpenInvitation | undefined> {
  if (!token || !TOKEN.test(token)) return undefined;
  const row = await findInvitationByTokenHash(ctx.db, sha256(token));
  if (!row || stateOf(row, ctx.clock()) !== 'pending') return undefined;
  const org = await findOrganizationById(ctx.db, row.organization_id);
  if (!org) return undefined;
  return {
    id: row.id,
    email: row.email,
    roles: row.roles,
    organization: { id: org.id, slug: org.slug, displayName: org.display_name },
    inviter: await inviterName(ctx.db, row.invited_by),
    expiresAt: row.expires_at,
  };
}

/** Whether this user may accept the invitation: signed in with the invited address, verified. */
export const addressMatches = (user: Pick<UserRow, 'email' | 'email_verified'>, invitation: Pick<OpenInvitation, 'email'>): boolean =>
  user.email !== null && user.email_verified && sameAddress(user.email, invitation.email);

export type Acceptance =
  | { kind: 'accepted'; organization: { id: string; slug: string; displayName: string }; roles: string[] }
  /** Unknown, used, revoked or expired: one answer for all. */
  | { kind: 'unusable' }
  /** The person signed in is not the invited address (or has not verified it). */
  | { kind: 'wrong-address' };

/**
 * Accepts the invitation for the user: single use even when two requests race (the one conditional UPDATE of
 * acceptInvitationRow decides), and the membership is written in the same transaction. A member already keeps
 * their roles and gains the invitation's.
 */
export async function acceptInvitation(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'log'>,
  token: string | undefined,
  user: Pick<UserRow, 'id' | 'email' | 'email_verified'>,
): Promise<Acceptance> {
  const open = await openInvitation(ctx, token);
  if (!open) return { kind: 'unusable' };
  if (!addressMatches(user, open)) return { kind: 'wrong-address' };
  const now = ctx.clock();
  const roles = await ctx.db.transaction().execute(async (trx: Db) => {
    const accepted = await acceptInvitationRow(trx, open.id, user.id, now);
    if (!accepted) return undefined;
    const member = {
      organization_id: accepted.organization_id,
      user_id: user.id,
      roles: accepted.roles,
      source: 'invitation' as const,
      joined_at: now,
    };
    if (await insertMembership(trx, member)) return accepted.roles;
    const current = await findMembership(trx, accepted.organization_id, user.id);
    const union = [...new Set([...(current?.roles ?? []), ...accepted.roles])];
    await updateMembershipRoles(trx, accepted.organization_id, user.id, union);
    return union;
  });
  if (!roles) return { kind: 'unusable' };
  ctx.log.info(
    { event: 'organization_invitation_accepted', organizationId: open.organization.id, invitationId: open.id, userId: user.id },
    'organization invitation accepted',
  );
  return { kind: 'accepted', organization: open.organization, roles };
}
