// sso-admin groups list|show|add|update|remove|add-member|remove-member|members, over
// src/domain/groups/group-admin.ts: groups of users, for the `groups` claim and for clients limited to groups.
import {
  addMember,
  checkGroupInput,
  createGroup,
  deleteGroup,
  listGroups,
  listMembers,
  removeMember,
  showGroup,
  updateGroup,
} from '../../domain/groups/group-admin.js';
import { groupJson, memberJson } from '../../domain/admin/representations.js';
import { UsageError, verb, type Noun } from '../command.js';
import { iso } from '../output.js';

const GROUP = { name: 'group', description: "the group's id or name (any case)" } as const;
const USER = { name: 'user', description: "the user's id or username" } as const;

export const groups: Noun = {
  name: 'groups',
  summary: 'groups of users: the groups claim, and clients limited to their members',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every group, with its number of members.',
      async run(session, input) {
        const all = await listGroups(session.ctx);
        if (input.json) return session.out.json(all.map(groupJson));
        session.out.table(
          ['id', 'name', 'members', 'description'],
          all.map((g) => [g.id, g.name, String(g.members), g.description ?? '-']),
          'no groups',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one group.',
      args: [GROUP],
      async run(session, input) {
        const g = await showGroup(session.ctx, input.args.group!);
        if (input.json) return session.out.json(groupJson(g));
        session.out.fields([
          ['id', g.id],
          ['name', g.name],
          ['description', g.description],
          ['members', g.members],
          ['created', g.createdAt],
          ['updated', g.updatedAt],
        ]);
      },
    }),
    verb({
      name: 'add',
      summary: 'Create a group.',
      args: [{ name: 'name', description: 'its name: unique in any case, at most 100 characters' }],
      options: { description: { type: 'string', value: 'TEXT', description: 'what the group is for, for admins' } },
      notes: 'The name is what the groups claim says of its members: choose it as applications expect it.',
      prepare(input) {
        const entry = { name: input.args.name!, description: (input.options.description as string | undefined) ?? null };
        checkGroupInput(entry);
        return entry;
      },
      async run(session, input, entry: { name: string; description: string | null }) {
        const g = await createGroup(session.ctx, entry);
        if (input.json) return session.out.json(groupJson(g));
        session.out.line(`group "${g.name}" created: id ${g.id}`);
      },
    }),
    verb({
      name: 'update',
      summary: 'Rename a group or change its description.',
      args: [GROUP],
      options: {
        name: { type: 'string', value: 'NAME', description: 'its new name' },
        description: { type: 'string', value: 'TEXT', description: 'its new description ("" removes it)' },
      },
      notes: `A new name is in the groups claim of tokens issued from then on; clients limited to the group stay limited
to it.`,
      prepare(input) {
        const name = input.options.name as string | undefined;
        const text = input.options.description as string | undefined;
        if (name === undefined && text === undefined) throw new UsageError('nothing to change: give --name or --description');
        const changes = { name, description: text === undefined ? undefined : text === '' ? null : text };
        checkGroupInput(changes);
        return changes;
      },
      async run(session, input, changes: { name?: string; description?: string | null }) {
        const { group, changed } = await updateGroup(session.ctx, input.args.group!, changes);
        if (input.json) return session.out.json({ ...groupJson(group), changed });
        session.out.line(changed.length === 0 ? `group "${group.name}" unchanged` : `group "${group.name}" updated: ${changed.join(', ')}`);
      },
    }),
    verb({
      name: 'remove',
      summary: 'Delete a group and its memberships.',
      args: [GROUP],
      destructive: true,
      notes: `Its members lose it from their groups claim in tokens issued from then on. A client limited to it stays
limited to its other groups; with none left it admits nobody until its allowed groups change (clients update).`,
      async run(session, input) {
        const target = await showGroup(session.ctx, input.args.group!);
        await session.confirm(`Delete group "${target.name}" and its ${target.members} memberships?`);
        const g = await deleteGroup(session.ctx, target.id);
        if (input.json) return session.out.json({ ...groupJson(g), deleted: true });
        session.out.line(`group "${g.name}" deleted (${g.members} members)`);
      },
    }),
    verb({
      name: 'add-member',
      summary: 'Add a user to a group.',
      args: [GROUP, USER],
      async run(session, input) {
        const done = await addMember(session.ctx, input.args.group!, input.args.user!);
        if (input.json) return session.out.json(done);
        session.out.line(
          done.added ? `"${done.username}" added to group "${done.group}"` : `"${done.username}" was already in group "${done.group}"`,
        );
      },
    }),
    verb({
      name: 'remove-member',
      summary: 'Remove a user from a group.',
      args: [GROUP, USER],
      notes: `Tokens already issued stay valid, and refresh tokens keep working: a client limited to groups checks them
when a code or a device grant is issued, not at refresh (docs/groups.md). Disable the user or revoke their
sessions and devices to end those too.`,
      async run(session, input) {
        const done = await removeMember(session.ctx, input.args.group!, input.args.user!);
        if (input.json) return session.out.json(done);
        session.out.line(
          done.removed ? `"${done.username}" removed from group "${done.group}"` : `"${done.username}" was not in group "${done.group}"`,
        );
      },
    }),
    verb({
      name: 'members',
      summary: 'List the members of a group.',
      args: [GROUP],
      async run(session, input) {
        const { group, members } = await listMembers(session.ctx, input.args.group!);
        if (input.json)
          return session.out.json({
            group: groupJson(group),
            members: members.map(memberJson),
          });
        session.out.table(
          ['id', 'username', 'email', 'added'],
          members.map((m) => [m.id, m.username, m.email ?? '-', iso(m.addedAt)]),
          `group "${group.name}" has no members`,
        );
      },
    }),
  ],
};
