// SCIM Groups (RFC 7643 4.2, RFC 7644 3) over the groups of issue 20 (src/domain/groups/group-admin.ts): displayName
// is the group's name, members are users (by id). Every change goes through the admin domain functions, so each
// rename, member added and member removed has its audit record; a request's changes commit together.
import { findUserById } from '../../storage/users.js';
import { listMemberRows, updateGroupRow } from '../../storage/groups.js';
import {
  findScimGroup,
  membersOfGroups,
  searchScimGroups,
  setScimGroupExternalId,
  type ScimGroupRow,
  type ScimGroupTerm,
} from '../../storage/scim-groups.js';
import { addMember, createGroup, deleteGroup, removeMember, updateGroup } from '../groups/group-admin.js';
import { isUuid, scimErrorOfAdmin } from './admin-errors.js';
import { parseFilter } from './filter.js';
import { asOneChange, lockForChange } from '../admin/admin.js';
import { applyPatch, lowerKeys, type PatchOperation } from './patch.js';
import { checkVersion, listResponse, pageOf, withVersion, type Json } from './representation.js';
import { notFound, ScimError } from './scim-error.js';
import type { ScimContext } from './users.js';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

type Member = { id: string; username: string };

/** RFC 7643 4.2: the Group with its members (unless left out: `excludedAttributes=members`), and its externalId (3.1). */
export function groupResource(row: ScimGroupRow, members: Member[] | null, scimBase: string): Json {
  return withVersion({
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    displayName: row.name,
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.username, $ref: `${scimBase}/Users/${m.id}` })) } : {}),
    meta: {
      resourceType: 'Group',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${scimBase}/Groups/${row.id}`,
    },
  });
}

async function findOrThrow(ctx: ScimContext, id: string): Promise<ScimGroupRow> {
  const row = isUuid(id) ? await findScimGroup(ctx.db, id) : undefined;
  if (!row) throw notFound('Group');
  return row;
}

/** The group with its row locked until the request's transaction ends, for If-Match (RFC 7644 3.14) to hold. */
async function lockedOrThrow(tctx: ScimContext, id: string): Promise<ScimGroupRow> {
  await lockForChange(tctx, { type: 'group', id: (await findOrThrow(tctx, id)).id });
  return findOrThrow(tctx, id);
}

const membersOf = async (ctx: ScimContext, id: string): Promise<Member[]> =>
  (await listMemberRows(ctx.db, id)).map((m) => ({ id: m.id, username: m.username }));

export async function getGroup(ctx: ScimContext, id: string, withMembers = true): Promise<Json> {
  const row = await findOrThrow(ctx, id);
  return groupResource(row, withMembers ? await membersOf(ctx, row.id) : null, ctx.scimBase);
}

const GROUP_FILTER_FIELDS: Record<string, ScimGroupTerm['field']> = { displayname: 'displayName', id: 'id', externalid: 'externalId' };

function groupTerms(filter: string | undefined): ScimGroupTerm[] {
  if (filter === undefined) return [];
  return parseFilter(filter).map((t): ScimGroupTerm => {
    const field = GROUP_FILTER_FIELDS[t.path];
    if (!field) throw new ScimError(400, `the filter may not name "${t.path}" (displayName, externalId)`, 'invalidFilter');
    if (typeof t.value !== 'string') throw new ScimError(400, `${t.path} compares with a string`, 'invalidFilter');
    return { field, op: t.op, value: t.value };
  });
}

/** RFC 7644 3.4.2: a page of the groups a filter selects; Entra asks with excludedAttributes=members. */
export async function listGroups(
  ctx: ScimContext,
  query: { filter?: string; startIndex?: number; count?: number; withMembers: boolean },
): Promise<Json> {
  const terms = groupTerms(query.filter);
  const page = pageOf(query.startIndex, query.count);
  const { total, rows } = await searchScimGroups(ctx.db, terms, page.offset, page.limit);
  const members = query.withMembers
    ? await membersOfGroups(
        ctx.db,
        rows.map((r) => r.id),
      )
    : undefined;
  return listResponse(
    total,
    page,
    rows.map((r) => groupResource(r, members?.get(r.id) ?? null, ctx.scimBase)),
  );
}

const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');

type GroupState = { displayName: string; externalId: string | null; memberIds: string[] };

/** What a Group representation asks for: its name, its externalId (none when absent) and its members' user ids. */
function stateOf(raw: unknown): GroupState {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidValue('the Group must be a JSON object');
  const rep = lowerKeys(raw) as Json;
  if (typeof rep.displayname !== 'string' || rep.displayname === '') throw invalidValue('displayName is required');
  const externalId = rep.externalid ?? null;
  if (externalId !== null && (typeof externalId !== 'string' || externalId.length < 1 || externalId.length > 1000))
    throw invalidValue('externalId must be a string of 1 to 1000 characters');
  if (rep.members !== undefined && rep.members !== null && !Array.isArray(rep.members)) throw invalidValue('members must be an array');
  const ids = ((rep.members as unknown[] | null | undefined) ?? []).map((m) => {
    const member = (typeof m === 'object' && m !== null ? m : {}) as Json;
    if (typeof member.type === 'string' && member.type.toLowerCase() === 'group')
      throw invalidValue('groups cannot be members of groups here');
    if (!isUuid(member.value)) throw invalidValue('each member needs the id of a User as its value');
    return member.value.toLowerCase();
  });
  return { displayName: rep.displayname, externalId, memberIds: [...new Set(ids)] };
}

/** Every member must be a user here; nothing is written otherwise. */
async function checkMembers(ctx: ScimContext, ids: readonly string[]): Promise<void> {
  for (const id of ids) if (!(await findUserById(ctx.db, id))) throw invalidValue(`no User "${id}" to be a member`);
}

/** RFC 7644 3.3: creates the group with its members. */
export async function createScimGroup(ctx: ScimContext, body: unknown): Promise<Json> {
  const state = stateOf(body);
  const id = await scimErrorOfAdmin(() =>
    asOneChange(ctx, async (tctx) => {
      await checkMembers(tctx, state.memberIds);
      const group = await createGroup(tctx, { name: state.displayName });
      if (state.externalId !== null) await setScimGroupExternalId(tctx.db, group.id, state.externalId);
      for (const member of state.memberIds) await addMember(tctx, group.id, member);
      return group.id;
    }),
  );
  return getGroup(ctx, id);
}

/** The changes from the group as it is to `state`: a rename, members added and removed, in one transaction. */
async function storeState(ctx: ScimContext, row: ScimGroupRow, current: Member[], state: GroupState) {
  const had = new Set(current.map((m) => m.id));
  const wanted = new Set(state.memberIds);
  await scimErrorOfAdmin(() =>
    asOneChange(ctx, async (tctx) => {
      await checkMembers(
        tctx,
        state.memberIds.filter((id) => !had.has(id)),
      );
      if (state.displayName !== row.name) await updateGroup(tctx, row.id, { name: state.displayName });
      const added = state.memberIds.filter((id) => !had.has(id));
      const removed = [...had].filter((id) => !wanted.has(id));
      for (const id of added) await addMember(tctx, row.id, id);
      for (const id of removed) await removeMember(tctx, row.id, id);
      const externalChanged = state.externalId !== row.external_id;
      if (externalChanged) await setScimGroupExternalId(tctx.db, row.id, state.externalId);
      // RFC 7643 3.1 meta.lastModified: a change of members (or of externalId) is a change of the group.
      if (added.length + removed.length > 0 || externalChanged) await updateGroupRow(tctx.db, row.id, { updated_at: tctx.clock() });
    }),
  );
}

/** RFC 7644 3.5.1 PUT: the name and the whole member list are replaced. */
export async function replaceScimGroup(ctx: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<Json> {
  await asOneChange(ctx, async (tctx) => {
    const row = await lockedOrThrow(tctx, id);
    const members = await membersOf(tctx, row.id);
    checkVersion(groupResource(row, members, ctx.scimBase), ifMatch);
    await storeState(tctx, row, members, stateOf(body));
  });
  return getGroup(ctx, id);
}

/** RFC 7644 3.5.2 PATCH: members added and removed (Okta's and Entra's shapes), displayName replaced. */
export async function patchScimGroup(ctx: ScimContext, id: string, operations: PatchOperation[], ifMatch?: string): Promise<Json> {
  await asOneChange(ctx, async (tctx) => {
    const row = await lockedOrThrow(tctx, id);
    const members = await membersOf(tctx, row.id);
    const current = groupResource(row, members, ctx.scimBase);
    checkVersion(current, ifMatch);
    await storeState(tctx, row, members, stateOf(applyPatch(current, operations)));
  });
  return getGroup(ctx, id);
}

/** RFC 7644 3.6: deletes the group and its memberships; its members stay. */
export async function deleteScimGroup(ctx: ScimContext, id: string, ifMatch?: string): Promise<void> {
  await asOneChange(ctx, async (tctx) => {
    const row = await lockedOrThrow(tctx, id);
    if (ifMatch !== undefined) checkVersion(groupResource(row, await membersOf(tctx, row.id), ctx.scimBase), ifMatch);
    await scimErrorOfAdmin(() => deleteGroup(tctx, row.id));
  });
}
