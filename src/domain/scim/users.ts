// SCIM Users (RFC 7643 4.1, RFC 7644 3): provisioned users are ordinary users. Each change goes through the admin
// domain functions the command line uses (src/domain/admin/user-admin.ts), so the audit trail names the SCIM client
// and webhooks follow; a request's changes commit together (asOneChange in src/domain/admin/admin.ts).
//
// Mapping onto users: userName -> username; emails (the primary one, else the first) -> email; name.givenName and
// name.familyName -> given_name and family_name; displayName (else name.formatted) -> name; active -> not disabled;
// externalId -> scim_users. Other attributes (phone numbers, addresses, the enterprise extension, a password) are
// ignored, as RFC 7644 3.3 lets a service provider do with attributes it does not support.
//
// What a client may change (issue 38, docs/scim.md): only users it provisioned (POST /Users, a scim_users row), and
// never a user with a console role; any other user it may read, not change (403). An address it sets is unverified.
import { randomToken } from '../secrets.js';
import type { SettableClaim } from '../claims.js';
import { asOneChange, lockForChange, type AdminContext } from '../admin/admin.js';
import { createUser, deleteUser, disableUser, enableUser, updateUserProfile } from '../admin/user-admin.js';
import { findScimUser, searchScimUsers, upsertScimUser, type ScimUserRow, type ScimUserTerm } from '../../storage/scim-users.js';
import { findUserRole } from '../../storage/groups.js';
import { parseFilter } from './filter.js';
import { applyPatch, lowerKeys, type PatchOperation } from './patch.js';
import { checkVersion, listResponse, pageOf, withVersion, type Json } from './representation.js';
import { notFound, ScimError } from './scim-error.js';
import { isUuid, scimErrorOfAdmin } from './admin-errors.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

/** A SCIM request's context: the admin context of its client, and where the endpoints are (meta.location). */
export type ScimContext = AdminContext & { scimBase: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The type of the one address a user resource carries (userResource): the answer to a comparison on emails.type. */
const EMAIL_TYPE = 'work';

/** RFC 7643 4.1: the User as this server keeps it, with meta (RFC 7643 3.1). */
export function userResource(row: ScimUserRow, scimBase: string): Json {
  const claims = row.claims;
  const name = {
    ...(str(claims.name) ? { formatted: claims.name } : {}),
    ...(str(claims.family_name) ? { familyName: claims.family_name } : {}),
    ...(str(claims.given_name) ? { givenName: claims.given_name } : {}),
  };
  const scimChange = row.scim_updated_at;
  const lastModified = scimChange && scimChange > row.updated_at ? scimChange : row.updated_at;
  return withVersion({
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.username,
    ...(Object.keys(name).length > 0 ? { name } : {}),
    ...(str(claims.name) ? { displayName: claims.name } : {}),
    ...(row.email !== null ? { emails: [{ value: row.email, type: EMAIL_TYPE, primary: true }] } : {}),
    active: row.disabled_at === null,
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: lastModified.toISOString(),
      location: `${scimBase}/Users/${row.id}`,
    },
  });
}

/** What a User representation asks for, checked (RFC 7643 4.1 types); `active` undefined leaves it as it is. */
interface UserState {
  userName: string;
  externalId: string | null;
  email: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  active: boolean | undefined;
}

const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');

function optionalString(value: unknown, attribute: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw invalidValue(`${attribute} must be a string`);
  return value;
}

/** RFC 7643 2.3.2 booleans; Entra sends "True" and "False" as strings, which are taken too. */
function booleanOf(value: unknown, attribute: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${attribute} must be true or false`);
}

function stateOf(raw: unknown): UserState {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidValue('the User must be a JSON object');
  const rep = lowerKeys(raw) as Json;
  const userName = optionalString(rep.username, 'userName');
  if (userName === null) throw invalidValue('userName is required');
  const name = rep.name ?? {};
  if (typeof name !== 'object' || name === null || Array.isArray(name)) throw invalidValue('name must be an object');
  const n = name as Json;
  if (rep.emails !== undefined && rep.emails !== null && !Array.isArray(rep.emails)) throw invalidValue('emails must be an array');
  const emails = ((rep.emails as unknown[] | null | undefined) ?? []).filter((e): e is Json => typeof e === 'object' && e !== null);
  const email = emails.find((e) => booleanOf(e.primary, 'emails.primary') === true) ?? emails[0];
  return {
    userName,
    externalId: optionalString(rep.externalid, 'externalId'),
    email: optionalString(email?.value, 'emails.value'),
    givenName: optionalString(n.givenname, 'name.givenName'),
    familyName: optionalString(n.familyname, 'name.familyName'),
    displayName: optionalString(rep.displayname, 'displayName') ?? optionalString(n.formatted, 'name.formatted'),
    active: booleanOf(rep.active, 'active'),
  };
}

/** The claims a state gives, for createUser and updateUserProfile (null removes a claim there). */
function claimsOf(state: UserState): Record<string, string | null> {
  return { given_name: state.givenName, family_name: state.familyName, name: state.displayName } satisfies Partial<
    Record<SettableClaim, string | null>
  >;
}

async function findOrThrow(ctx: ScimContext, id: string): Promise<ScimUserRow> {
  const row = isUuid(id) ? await findScimUser(ctx.db, id) : undefined;
  if (!row) throw notFound('User');
  return row;
}

/**
 * The user with their row locked until the request's transaction ends (`tctx.db` is it: asOneChange), so that
 * If-Match (RFC 7644 3.14) is compared with the version the change is made to.
 */
async function lockedOrThrow(tctx: ScimContext, id: string): Promise<ScimUserRow> {
  await lockForChange(tctx, { type: 'user', id: (await findOrThrow(tctx, id)).id });
  return findOrThrow(tctx, id);
}

/**
 * A provisioning token must never be worth more than an admin (issue 38): it changes (PUT, PATCH, DELETE) only the
 * users provisioned over SCIM, and none who holds a console role, whose address would otherwise take the console
 * through a password reset. RFC 7644 3.12: "403 Forbidden: Operation is not permitted based on the supplied
 * authorization." (Table 9 has no scimType for it: scimType is for 400.)
 */
async function refuseUnlessProvisioned(tctx: ScimContext, row: ScimUserRow): Promise<void> {
  if (row.scim_updated_at === null)
    throw new ScimError(403, 'this user was not provisioned over SCIM: a provisioning client may read them, not change them');
  if ((await findUserRole(tctx.db, row.id)) !== undefined)
    throw new ScimError(403, 'this user holds a console role: only an admin may change them');
}

export async function getUser(ctx: ScimContext, id: string): Promise<Json> {
  return userResource(await findOrThrow(ctx, id), ctx.scimBase);
}

/** RFC 7644 3.4.2.2: the attribute paths a filter on Users may name, and what each compares. */
const USER_FILTER_FIELDS: Record<string, ScimUserTerm['field']> = {
  id: 'id',
  username: 'userName',
  externalid: 'externalId',
  emails: 'email',
  'emails.value': 'email',
  displayname: 'displayName',
  active: 'active',
};

/** Does `value` stand in `op` to `EMAIL_TYPE` (RFC 7643 2.4: type is not caseExact)? */
function emailTypeHolds(op: ScimUserTerm['op'], value: string): boolean {
  const v = value.toLowerCase();
  return op === 'eq' ? EMAIL_TYPE === v : op === 'sw' ? EMAIL_TYPE.startsWith(v) : EMAIL_TYPE.includes(v);
}

function userTerms(filter: string | undefined): ScimUserTerm[] {
  if (filter === undefined) return [];
  return parseFilter(filter).map((t): ScimUserTerm => {
    if (t.path === 'emails.type') {
      // Entra's `emails[type eq "work"].value eq "..."`: every address kept here is a work address, so the comparison
      // is decided here, as "has an address" (sw "" matches any) or as a term no user meets.
      if (typeof t.value !== 'string') throw new ScimError(400, 'emails.type compares with a string', 'invalidFilter');
      return emailTypeHolds(t.op, t.value) ? { field: 'email', op: 'sw', value: '' } : { field: 'id', op: 'eq', value: '' };
    }
    const field = USER_FILTER_FIELDS[t.path];
    if (!field)
      throw new ScimError(
        400,
        `the filter may not name "${t.path}" (userName, externalId, emails.value, displayName, active)`,
        'invalidFilter',
      );
    if (field === 'active') {
      if (t.op !== 'eq' || typeof t.value !== 'boolean')
        throw new ScimError(400, 'active compares with eq true or eq false', 'invalidFilter');
      return { field, op: 'eq', value: t.value };
    }
    if (typeof t.value !== 'string') throw new ScimError(400, `${t.path} compares with a string`, 'invalidFilter');
    return { field, op: t.op, value: t.value };
  });
}

/** RFC 7644 3.4.2: a page of the users a filter selects. */
export async function listUsers(ctx: ScimContext, query: { filter?: string; startIndex?: number; count?: number }): Promise<Json> {
  const terms = userTerms(query.filter);
  const page = pageOf(query.startIndex, query.count);
  const { total, rows } = await searchScimUsers(ctx.db, terms, page.offset, page.limit);
  return listResponse(
    total,
    page,
    rows.map((r) => userResource(r, ctx.scimBase)),
  );
}

/** RFC 7644 3.3: creates the user, with no password anyone knows (as just-in-time provisioning does). */
export async function createScimUser(ctx: ScimContext, body: unknown): Promise<Json> {
  const state = stateOf(body);
  const claims = Object.fromEntries(Object.entries(claimsOf(state)).filter(([, v]) => v !== null));
  const id = await scimErrorOfAdmin(() =>
    asOneChange(ctx, async (tctx) => {
      // Nobody knows this password: the person signs in through an upstream connection, a passkey, or after a reset.
      // 48 random bytes are 64 characters, the longest PASSWORD_MIN_LENGTH may ask for.
      const user = await createUser(tctx, {
        username: state.userName,
        password: randomToken(48),
        ...(state.email !== null ? { email: state.email } : {}),
        ...claims,
      });
      // The user's creation time: a new resource's meta.lastModified is its meta.created (RFC 7643 3.1), as Entra shows.
      await upsertScimUser(tctx.db, user.id, state.externalId, user.createdAt);
      if (state.active === false) await disableUser(tctx, user.id);
      return user.id;
    }),
  );
  return getUser(ctx, id);
}

/** The changes from `row` to `state`, made through the admin functions in one transaction. */
async function storeState(ctx: ScimContext, row: ScimUserRow, state: UserState): Promise<void> {
  const current = userResource(row, ctx.scimBase);
  const before = stateOf(current);
  const patch: Record<string, unknown> = {};
  if (state.userName !== before.userName) patch.username = state.userName;
  if (state.email !== before.email) {
    patch.email = state.email;
    // An address the provider has not seen verified is not claimed verified (OIDC Core 5.1 email_verified).
    patch.email_verified = false;
  }
  const nextClaims = claimsOf(state);
  const beforeClaims = claimsOf(before);
  for (const [claim, value] of Object.entries(nextClaims)) if (value !== beforeClaims[claim]) patch[claim] = value;
  await scimErrorOfAdmin(() =>
    asOneChange(ctx, async (tctx) => {
      if (Object.keys(patch).length > 0) await updateUserProfile(tctx, row.id, patch);
      await upsertScimUser(tctx.db, row.id, state.externalId, tctx.clock());
      // Deprovisioning (issue 20): active false disables the user and ends their sessions, as `sso-admin users disable` does.
      if (state.active === false && row.disabled_at === null) await disableUser(tctx, row.id);
      if (state.active === true && row.disabled_at !== null) await enableUser(tctx, row.id);
    }),
  );
}

/** RFC 7644 3.5.1 PUT: the representation replaces the user's attributes; `id` and `meta` are the server's. */
export async function replaceScimUser(ctx: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<Json> {
  await asOneChange(ctx, async (tctx) => {
    const row = await lockedOrThrow(tctx, id);
    await refuseUnlessProvisioned(tctx, row);
    checkVersion(userResource(row, ctx.scimBase), ifMatch);
    await storeState(tctx, row, stateOf(body));
  });
  return getUser(ctx, id);
}

/** RFC 7644 3.5.2 PATCH: the operations applied to the representation, stored as a PUT of the result. */
export async function patchScimUser(ctx: ScimContext, id: string, operations: PatchOperation[], ifMatch?: string): Promise<Json> {
  await asOneChange(ctx, async (tctx) => {
    const row = await lockedOrThrow(tctx, id);
    await refuseUnlessProvisioned(tctx, row);
    const current = userResource(row, ctx.scimBase);
    checkVersion(current, ifMatch);
    await storeState(tctx, row, stateOf(applyPatch(current, operations)));
  });
  return getUser(ctx, id);
}

/** RFC 7644 3.6: the user and everything of theirs is deleted; their sessions end first (deleteUser). */
export async function deleteScimUser(ctx: ScimContext, id: string, ifMatch?: string): Promise<void> {
  await asOneChange(ctx, async (tctx) => {
    const row = await lockedOrThrow(tctx, id);
    await refuseUnlessProvisioned(tctx, row);
    checkVersion(userResource(row, ctx.scimBase), ifMatch);
    await scimErrorOfAdmin(() => deleteUser(tctx, row.id));
  });
}
