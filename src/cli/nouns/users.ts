// sso-admin users list|show|create|set-password|set-role|reset-link|invite|disable|enable|delete, over
// src/domain/admin/user-admin.ts.
import { organizationsOfUser } from '../../domain/organizations/organization-admin.js';
import { AdminError } from '../../domain/admin-error.js';
import { isSettableClaim, USER_CLAIMS } from '../../domain/claims.js';
import { ADMIN_ROLES, isAdminRoleChoice, type UserEntry } from '../../domain/user-entry.js';
import {
  checkPassword,
  checkUserEntry,
  createUser,
  deleteUser,
  disableUser,
  enableUser,
  inviteUser,
  listUsers,
  resetLink,
  setPassword,
  setRole,
  showUser,
  type UserSummary,
} from '../../domain/admin/user-admin.js';
import { userJson } from '../../domain/admin/representations.js';
import { UsageError, verb, type Invocation, type Noun, type OptionSpec } from '../command.js';
import { iso } from '../output.js';
import type { Terminal } from '../terminal.js';

const PASSWORD_STDIN: OptionSpec = {
  type: 'boolean',
  description: 'read the password from standard input (up to its end; one final newline is dropped)',
};

const PASSWORD_NOTES = `The password is never taken from the command line, where other users could see it in the process
list and it would stay in the shell's history: on a terminal it is asked for twice, without echo; in a script it
is read from standard input with --password-stdin (printf '%s' "$PASSWORD" | sso-admin ...). At least
PASSWORD_MIN_LENGTH characters (8 by default), at most 256 bytes, not the username or email, and not among the
bundled list of common breached passwords.`;

/** The new password: from stdin with --password-stdin, else typed twice at the terminal. */
async function readPassword(input: Invocation, terminal: Terminal): Promise<string> {
  let password: string;
  if (input.options['password-stdin'] === true) {
    password = (await terminal.readAll()).replace(/\r?\n$/, '');
  } else if (terminal.interactive) {
    password = await terminal.readHidden('New password: ');
    if ((await terminal.readHidden('Repeat it: ')) !== password) throw new AdminError('the two passwords differ: nothing was changed');
  } else {
    throw new UsageError('stdin is not a terminal, so the password cannot be asked for: pass it on stdin with --password-stdin');
  }
  checkPassword(password);
  return password;
}

/** --claim NAME=VALUE, typed as OIDC Core 5.1 types the claim: booleans, the address object, strings. */
function parseClaims(values: string[] | undefined): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const item of values ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--claim takes NAME=VALUE (got "${item}")`);
    const name = item.slice(0, eq);
    const text = item.slice(eq + 1);
    if (name === 'username' || name === 'password') throw new UsageError(`${name} is not a claim`);
    if (name === 'role') throw new UsageError('role is not a claim: give the console role with users set-role');
    const type = isSettableClaim(name) ? USER_CLAIMS[name].type : 'string';
    if (type === 'boolean') {
      if (text !== 'true' && text !== 'false') throw new UsageError(`--claim ${name} must be true or false`);
      claims[name] = text === 'true';
    } else if (type === 'address') {
      try {
        claims[name] = JSON.parse(text);
      } catch {
        throw new UsageError('--claim address takes a JSON object, e.g. address={"country":"FR"}');
      }
    } else {
      claims[name] = text;
    }
  }
  return claims;
}

const status = (u: UserSummary) => (u.disabledAt === null ? 'active' : `disabled ${iso(u.disabledAt)}`);

const USER = { name: 'user', description: "the user's id or username" } as const;

export const users: Noun = {
  name: 'users',
  summary: 'the people who sign in: accounts, passwords, disabling',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every user.',
      async run(session, input) {
        const all = await listUsers(session.ctx);
        if (input.json) return session.out.json(all.map(userJson));
        session.out.table(
          ['id', 'username', 'email', 'status', 'created'],
          all.map((u) => [u.id, u.username, u.email ?? '-', status(u), iso(u.createdAt)]),
          'no users',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one user: claims, status, live sessions, devices, authenticator app.',
      args: [USER],
      async run(session, input) {
        const u = await showUser(session.ctx, input.args.user!);
        const orgs = await organizationsOfUser(session.ctx, u.id);
        if (input.json) {
          return session.out.json({
            ...userJson(u),
            claims: u.claims,
            live_sessions: u.liveSessions,
            devices: u.devices,
            authenticator_app: u.authenticatorApp,
            role: u.role,
            groups: u.groups,
            organizations: orgs.map((o) => ({ id: o.organizationId, slug: o.slug, roles: o.roles, source: o.source })),
          });
        }
        session.out.fields([
          ['id', u.id],
          ['username', u.username],
          ['email', u.email === null ? null : `${u.email}${u.emailVerified ? ' (verified)' : ' (not verified)'}`],
          ['status', status(u)],
          ...Object.entries(u.claims).sort(([a], [b]) => a.localeCompare(b)),
          ['live sessions', u.liveSessions],
          ['devices', u.devices],
          ['authenticator app', u.authenticatorApp ? 'enrolled' : 'none'],
          ['role', u.role],
          ['groups', u.groups.length === 0 ? 'none' : u.groups.join(', ')],
          ['organizations', orgs.length === 0 ? 'none' : orgs.map((o) => `${o.slug} (${o.roles.join(', ')})`)],
          ['created', u.createdAt],
          ['updated', u.updatedAt],
        ]);
      },
    }),
    verb({
      name: 'create',
      summary: 'Create a user with a password.',
      args: [{ name: 'username', description: "the new user's username (they may also sign in with their email)" }],
      options: {
        email: { type: 'string', value: 'EMAIL', description: 'their email address (unique)' },
        'email-verified': { type: 'boolean', description: 'the email address is known to be theirs' },
        claim: {
          type: 'string',
          value: 'NAME=VALUE',
          multiple: true,
          description: 'an OIDC Core 5.1 claim: name, given_name, family_name, locale, phone_number, address={...}...',
        },
        'password-stdin': PASSWORD_STDIN,
      },
      notes: PASSWORD_NOTES,
      async prepare(input, terminal) {
        const entry: UserEntry = {
          ...parseClaims(input.options.claim as string[] | undefined),
          username: input.args.username!,
          password: 'read-and-checked-below',
          ...(input.options.email === undefined ? {} : { email: input.options.email as string }),
          ...(input.options['email-verified'] === true ? { email_verified: true } : {}),
        };
        checkUserEntry(entry);
        return { ...entry, password: await readPassword(input, terminal) };
      },
      async run(session, input, entry: UserEntry) {
        const user = await createUser(session.ctx, entry);
        if (input.json) return session.out.json(userJson(user));
        session.out.line(`user "${user.username}" created: id ${user.id}`);
      },
    }),
    verb({
      name: 'set-password',
      summary: "Set a user's password.",
      args: [USER],
      options: { 'password-stdin': PASSWORD_STDIN },
      notes: `${PASSWORD_NOTES}\nEvery session of the user ends, console sessions too; tokens already issued stay (disable the user to revoke them).`,
      prepare: (input, terminal) => readPassword(input, terminal),
      async run(session, input, password: string) {
        const user = await setPassword(session.ctx, input.args.user!, password);
        if (input.json) return session.out.json({ ...userJson(user), password_set: true });
        session.out.line(`password of "${user.username}" set`);
      },
    }),
    verb({
      name: 'set-role',
      summary: "Set a user's console role: admin, auditor or none.",
      args: [USER, { name: 'role', description: `${ADMIN_ROLES.join(', ')}` }],
      notes: `admin may do everything in the console, auditor may only read; none takes the role away. The role is the
console's only: it changes nothing of what the user may sign in to.`,
      prepare(input) {
        const role = input.args.role!;
        if (!isAdminRoleChoice(role)) throw new UsageError(`the role must be one of ${ADMIN_ROLES.join(', ')} (got "${role}")`);
        return role;
      },
      async run(session, input, role: (typeof ADMIN_ROLES)[number]) {
        const done = await setRole(session.ctx, input.args.user!, role);
        if (input.json)
          return session.out.json({ ...userJson(done.user), role: done.role, previous_role: done.previous, changed: done.changed });
        session.out.line(
          done.changed
            ? `role of "${done.user.username}" set to ${done.role} (was ${done.previous})`
            : `role of "${done.user.username}" was already ${done.role}: unchanged`,
        );
      },
    }),
    verb({
      name: 'reset-link',
      summary: 'Make a password reset link for a user: print it, or mail it with --send.',
      args: [USER],
      options: {
        send: { type: 'boolean', description: "mail the link to the user's address (through the outbox) instead of printing it" },
      },
      notes: `The link works once, for PASSWORD_RESET_TTL_SECONDS (30 minutes by default), like one the user asks for on
the sign-in page; a newer link, a password change or disabling the user ends it. Printed, it is a secret: hand it
to the user only. Setting the password through it signs the user out everywhere.`,
      async run(session, input) {
        const send = input.options.send === true;
        const { user, url } = await resetLink(session.ctx, input.args.user!, send);
        if (input.json) return session.out.json({ ...userJson(user), ...(url ? { reset_url: url } : { sent: true }) });
        session.out.line(url ?? `a reset link was queued for the email address of "${user.username}"`);
      },
    }),
    verb({
      name: 'invite',
      summary: 'Mail an invitation to create an account (SIGNUP=invite or open).',
      args: [{ name: 'email', description: 'the address to invite' }],
      notes: `The invitation's link works once, for SIGNUP_VERIFICATION_TTL_SECONDS (an hour by default), and leads to the
sign-up form with the address fixed; following it verifies the address, so the account is created at once. The
mail goes through the outbox, for a running instance to deliver.`,
      async run(session, input) {
        const email = input.args.email!;
        await inviteUser(session.ctx, email);
        if (input.json) return session.out.json({ invited: email });
        session.out.line(`an invitation was queued for ${email}`);
      },
    }),
    verb({
      name: 'disable',
      summary: 'Stop a user from signing in; end their sessions and revoke their tokens.',
      args: [USER],
      destructive: true,
      notes: `At once and on every instance: sign-in, codes, refresh and userinfo refuse a disabled user. Their
sessions end (the clients are told by back-channel logout), and their codes, refresh and access tokens are revoked
for good: enabling them again revives none of it.`,
      async run(session, input) {
        const ref = input.args.user!;
        const target = await showUser(session.ctx, ref);
        await session.confirm(`Disable user "${target.username}", end their ${target.liveSessions} sessions and revoke their tokens?`);
        const done = await disableUser(session.ctx, ref);
        if (input.json) {
          return session.out.json({
            ...userJson(done.user),
            already_disabled: done.alreadyDisabled,
            sessions_ended: done.sessionsEnded,
            backchannel_logouts_queued: done.logoutsQueued,
            codes_revoked: done.codesRevoked,
            refresh_tokens_revoked: done.refreshTokensRevoked,
            access_tokens_revoked: done.accessTokensRevoked,
          });
        }
        session.out.line(
          `user "${done.user.username}" ${done.alreadyDisabled ? 'was already disabled' : 'disabled'}: ${done.sessionsEnded} sessions ended ` +
            `(${done.logoutsQueued} back-channel logouts queued), ${done.refreshTokensRevoked} refresh tokens, ` +
            `${done.accessTokensRevoked} access tokens and ${done.codesRevoked} codes revoked`,
        );
      },
    }),
    verb({
      name: 'enable',
      summary: 'Let a disabled user sign in again.',
      args: [USER],
      async run(session, input) {
        const { user, changed } = await enableUser(session.ctx, input.args.user!);
        if (input.json) return session.out.json({ ...userJson(user), changed });
        session.out.line(changed ? `user "${user.username}" enabled` : `user "${user.username}" was not disabled: unchanged`);
      },
    }),
    verb({
      name: 'delete',
      summary: 'Delete a user and everything of theirs.',
      args: [USER],
      destructive: true,
      notes: `Their sessions end first (the clients are told by back-channel logout); then the user goes with their
codes, tokens, consents, devices and authenticator app. Stored security events stay, without the user.`,
      async run(session, input) {
        const ref = input.args.user!;
        const target = await showUser(session.ctx, ref);
        await session.confirm(`Delete user "${target.username}" (${target.id}) and everything of theirs?`);
        const done = await deleteUser(session.ctx, ref);
        if (input.json) {
          return session.out.json({
            id: done.user.id,
            username: done.user.username,
            deleted: true,
            sessions_ended: done.sessionsEnded,
            backchannel_logouts_queued: done.logoutsQueued,
          });
        }
        session.out.line(
          `user "${done.user.username}" deleted: ${done.sessionsEnded} sessions ended (${done.logoutsQueued} back-channel logouts queued)`,
        );
      },
    }),
  ],
};
