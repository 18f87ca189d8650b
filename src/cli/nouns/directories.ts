// sso-admin directories list|show|add|remove|test, over src/domain/directories/directory-admin.ts: the LDAP and
// Active Directory servers the password form checks passwords against (user federation, as Keycloak calls it).
import { readFileSync } from 'node:fs';
import { AdminError } from '../../domain/admin-error.js';
import {
  addDirectory,
  checkDirectoryInput,
  listDirectorySummaries,
  removeDirectory,
  showDirectory,
  testDirectory,
  type DirectorySummary,
} from '../../domain/directories/directory-admin.js';
import type { DirectoryInput } from '../../domain/directories/directory-settings.js';
import { UsageError, verb, type Invocation, type Noun, type Session } from '../command.js';
import type { Terminal } from '../terminal.js';

const ID = { name: 'id', description: 'the directory: a slug such as corp' } as const;

const text = (input: Invocation, name: string) => input.options[name] as string | undefined;
const optional = (key: string, value: unknown) => (value === undefined ? {} : { [key]: value });

function integer(input: Invocation, name: string): number | undefined {
  const value = text(input, name);
  if (value === undefined) return undefined;
  if (!/^-?\d{1,7}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function readCa(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`--ca-file: cannot read ${path}`);
  }
}

/** The service account's password: from stdin with --bind-password-stdin, else typed at the terminal. */
async function readBindPassword(input: Invocation, terminal: Terminal): Promise<string> {
  if (input.options['bind-password-stdin'] === true) return (await terminal.readAll()).replace(/\r?\n$/, '');
  if (terminal.interactive) return terminal.readHidden('Bind password: ');
  throw new UsageError('stdin is not a terminal, so the bind password cannot be asked for: pass it on stdin with --bind-password-stdin');
}

/** The entry the options describe, as a seed file's `directories` entry would be. */
function entryFrom(input: Invocation, bindPassword: string): Record<string, unknown> {
  const groupBase = text(input, 'group-base');
  const groupFilter = text(input, 'group-filter');
  if ((groupBase === undefined) !== (groupFilter === undefined)) throw new UsageError('--group-base and --group-filter go together');
  return {
    id: input.args.id!,
    display_name: text(input, 'name') ?? input.args.id!,
    url: text(input, 'url'),
    ...optional('start_tls', input.options['start-tls'] === true ? true : undefined),
    ...optional('allow_plain_ldap', input.options['allow-plain-ldap'] === true ? true : undefined),
    ...optional('ca_certificate', readCa(text(input, 'ca-file'))),
    bind_dn: text(input, 'bind-dn'),
    bind_password: bindPassword,
    user_base: text(input, 'user-base'),
    user_filter: text(input, 'user-filter'),
    attributes: {
      username: text(input, 'username-attribute') ?? 'uid',
      id_attribute: text(input, 'id-attribute') ?? 'entryUUID',
      ...optional('email', text(input, 'email-attribute')),
      ...optional('email_verified', input.options['email-verified'] === true ? true : undefined),
      ...optional('name', text(input, 'name-attribute')),
      ...optional('given_name', text(input, 'given-name-attribute')),
      ...optional('family_name', text(input, 'family-name-attribute')),
      ...optional('groups', text(input, 'groups-attribute')),
    },
    ...optional('group_search', groupBase === undefined ? undefined : { base: groupBase, filter: groupFilter }),
    ...optional('connect_timeout_ms', integer(input, 'connect-timeout-ms')),
    ...optional('operation_timeout_ms', integer(input, 'operation-timeout-ms')),
    ...optional('order', integer(input, 'order')),
    ...optional('enabled', input.options.disabled === true ? false : undefined),
  };
}

function printDirectory(session: Session, d: DirectorySummary): void {
  session.out.fields([
    ['id', d.id],
    ['display_name', d.display_name],
    ['url', d.url],
    ['start_tls', d.start_tls],
    ['allow_plain_ldap', d.allow_plain_ldap],
    ['ca_certificate', d.ca_certificate === undefined ? undefined : 'set'],
    ['bind_dn', d.bind_dn],
    ['user_base', d.user_base],
    ['user_filter', d.user_filter],
    ...Object.entries(d.attributes).map(([k, v]) => [`attribute ${k}`, v] as const),
    ['group_search', d.group_search && `${d.group_search.filter} under ${d.group_search.base}`],
    ['timeouts', `connect ${d.connect_timeout_ms} ms, operation ${d.operation_timeout_ms} ms`],
    ['enabled', d.enabled],
    ['order', d.order],
    ['linked_users', d.linked_users],
  ]);
}

const string = (value: string, description: string) => ({ type: 'string', value, description }) as const;

export const directories: Noun = {
  name: 'directories',
  summary: 'LDAP and Active Directory servers the password form checks passwords against (user federation)',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every directory, in the order sign-ins search them.',
      async run(session, input) {
        const all = await listDirectorySummaries(session.ctx);
        if (input.json) return session.out.json(all);
        session.out.table(
          ['order', 'id', 'name', 'url', 'enabled', 'users'],
          all.map((d) => [String(d.order), d.id, d.display_name, d.url, d.enabled ? 'yes' : 'no', String(d.linked_users)]),
          'no directories',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one directory (never its bind password).',
      args: [ID],
      async run(session, input) {
        const d = await showDirectory(session.ctx, input.args.id!);
        if (input.json) session.out.json(d);
        else printDirectory(session, d);
      },
    }),
    verb({
      name: 'add',
      summary: 'Add a directory, or replace every field of an existing one.',
      args: [ID],
      options: {
        name: string('NAME', 'its name, for people (default: the id)'),
        url: string('URL', 'ldaps://host:636, or ldap://host:389 with --start-tls'),
        'start-tls': { type: 'boolean', description: 'upgrade ldap:// with StartTLS before binding (RFC 4511 4.14)' },
        'allow-plain-ldap': { type: 'boolean', description: 'DANGER: allow ldap:// without TLS: passwords cross the network in the clear' },
        'ca-file': string('PATH', 'PEM certificates to trust for its TLS, besides the system ones'),
        'bind-dn': string('DN', 'the service account that searches'),
        'bind-password-stdin': { type: 'boolean', description: "read the service account's password from standard input" },
        'user-base': string('DN', 'where users are searched'),
        'user-filter': string('FILTER', 'an RFC 4515 filter with {login}, e.g. (uid={login}) or (sAMAccountName={login})'),
        'username-attribute': string('ATTR', 'the username of provisioned users (default uid)'),
        'id-attribute': string('ATTR', 'an identifier that survives renames (default entryUUID; objectGUID on AD)'),
        'email-attribute': string('ATTR', 'the email address (mail)'),
        'email-verified': { type: 'boolean', description: "take the directory's addresses as verified" },
        'name-attribute': string('ATTR', 'the name claim (cn, displayName)'),
        'given-name-attribute': string('ATTR', 'the given_name claim (givenName)'),
        'family-name-attribute': string('ATTR', 'the family_name claim (sn)'),
        'groups-attribute': string('ATTR', 'an attribute listing the groups (memberOf)'),
        'group-base': string('DN', 'where groups are searched (with --group-filter)'),
        'group-filter': string('FILTER', 'an RFC 4515 filter with {dn}, e.g. (member={dn})'),
        'connect-timeout-ms': string('MS', 'connection timeout (default 3000)'),
        'operation-timeout-ms': string('MS', 'timeout of each bind and search (default 5000)'),
        order: string('N', 'sign-ins search directories by this order, lowest first (default 0)'),
        disabled: { type: 'boolean', description: 'add it disabled' },
      },
      notes: `The bind password is never taken from the command line, where other users could see it in the process
list: it is typed at the terminal, or read from standard input with --bind-password-stdin. It is stored sealed
under KEYS_ENCRYPTION_SECRET. Every option not given goes back to its default: add replaces the whole entry, as
a seed file entry does. Try it with: directories test ID LOGIN.`,
      async prepare(input, terminal) {
        const entry = entryFrom(input, 'checked-below');
        checkDirectoryInput(entry);
        return { ...entry, bind_password: await readBindPassword(input, terminal) } as DirectoryInput;
      },
      async run(session, input, entry: DirectoryInput) {
        const result = await addDirectory(session.ctx, entry);
        if (input.json) return session.out.json({ ...result.entry, created: result.created });
        session.out.line(`directory "${entry.id}" ${result.created ? 'added' : 'replaced'}`);
      },
    }),
    verb({
      name: 'remove',
      summary: 'Remove a directory; the users it provisioned stay, but can no longer sign in with a password.',
      args: [ID],
      destructive: true,
      async run(session, input) {
        const id = input.args.id!;
        const d = await showDirectory(session.ctx, id);
        await session.confirm(`Remove directory "${id}"? Its ${d.linked_users} users can no longer sign in with their directory password.`);
        await removeDirectory(session.ctx, id);
        if (input.json) return session.out.json({ id, removed: true });
        session.out.line(`directory "${id}" removed`);
      },
    }),
    verb({
      name: 'test',
      summary: 'Bind as the service account and search a login, as a sign-in would; no password is asked or sent.',
      args: [ID, { name: 'login', description: 'the login a person would type' }],
      async run(session, input) {
        const found = await testDirectory(session.ctx, input.args.id!, input.args.login!);
        if (!found) throw new AdminError(`directory "${input.args.id!}" answered, but no single entry matches that login`);
        if (input.json) return session.out.json(found);
        session.out.fields([
          ['dn', found.dn],
          ['external_id', found.externalId],
          ['username', found.username],
          ['email', found.email],
          ['email_verified', found.emailVerified],
          ...Object.entries(found.claims).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v] as const),
        ]);
      },
    }),
  ],
};
