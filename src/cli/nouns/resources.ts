// sso-admin resources list|show|set|delete, over src/domain/resources/resource-admin.ts: the APIs (RFC 8707 resource
// servers) access tokens are issued for.
import {
  checkResourceServerEntry,
  deleteResource,
  listResources,
  setResource,
  showResource,
} from '../../domain/resources/resource-admin.js';
import type { ResourceServerEntry, TokenFormat } from '../../domain/resources/resource-servers.js';
import type { SigningAlg } from '../../domain/keys/signing-algs.js';
import { UsageError, verb, type Invocation, type Noun, type Session } from '../command.js';

const IDENTIFIER = { name: 'identifier', description: 'the resource server, an absolute URI (RFC 8707 2)' } as const;

/** The entry the options describe; `--scope NAME=DESCRIPTION` repeated. */
function entryFrom(input: Invocation): ResourceServerEntry {
  const scopes: Record<string, string> = {};
  for (const item of (input.options.scope as string[] | undefined) ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError('--scope takes NAME=DESCRIPTION, the description being what the consent page says');
    scopes[item.slice(0, eq)] = item.slice(eq + 1);
  }
  const ttl = input.options['access-token-ttl-seconds'] as string | undefined;
  if (ttl !== undefined && !/^\d{1,6}$/.test(ttl)) throw new UsageError('--access-token-ttl-seconds must be a number of seconds');
  const name = input.options.name as string | undefined;
  const format = input.options['access-token-format'] as string | undefined;
  const alg = input.options['access-token-signing-alg'] as string | undefined;
  const clients = input.options['introspecting-client'] as string[] | undefined;
  return {
    identifier: input.args.identifier!,
    ...(name === undefined ? {} : { name }),
    scopes,
    ...(format === undefined ? {} : { access_token_format: format as TokenFormat }),
    ...(ttl === undefined ? {} : { access_token_ttl_seconds: Number(ttl) }),
    ...(alg === undefined ? {} : { access_token_signing_alg: alg as SigningAlg }),
    ...(clients === undefined ? {} : { introspecting_clients: clients }),
  };
}

function printResource(session: Session, r: ResourceServerEntry): void {
  session.out.fields([
    ['identifier', r.identifier],
    ['name', r.name],
    ['access_token_format', r.access_token_format],
    ['access_token_ttl_seconds', r.access_token_ttl_seconds],
    ['access_token_signing_alg', r.access_token_signing_alg],
    ['introspecting_clients', r.introspecting_clients],
    ...Object.entries(r.scopes ?? {}).map(([scope, description]) => [`scope ${scope}`, description] as const),
  ]);
}

export const resources: Noun = {
  name: 'resources',
  summary: 'resource servers (APIs) that access tokens are issued for (RFC 8707, RFC 9068)',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every resource server.',
      async run(session, input) {
        const all = await listResources(session.ctx);
        if (input.json) return session.out.json(all);
        session.out.table(
          ['identifier', 'name', 'format', 'ttl', 'scopes'],
          all.map((r) => [
            r.identifier,
            r.name ?? '-',
            r.access_token_format ?? 'opaque',
            String(r.access_token_ttl_seconds),
            Object.keys(r.scopes ?? {}).join(' ') || '-',
          ]),
          'no resource servers',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one resource server.',
      args: [IDENTIFIER],
      async run(session, input) {
        const r = await showResource(session.ctx, input.args.identifier!);
        if (input.json) session.out.json(r);
        else printResource(session, r);
      },
    }),
    verb({
      name: 'set',
      summary: 'Create a resource server, or replace every field of an existing one.',
      args: [IDENTIFIER],
      options: {
        name: { type: 'string', value: 'NAME', description: 'its name, for people' },
        scope: { type: 'string', value: 'NAME=DESCRIPTION', multiple: true, description: 'a scope it defines and what consent says of it' },
        'access-token-format': {
          type: 'string',
          value: 'FORMAT',
          description: 'opaque (default; checked at introspection) or jwt (RFC 9068)',
        },
        'access-token-ttl-seconds': { type: 'string', value: 'SECONDS', description: 'lifetime of its access tokens (default 3600)' },
        'access-token-signing-alg': { type: 'string', value: 'ALG', description: 'RS256 (default), PS256, ES256 or EdDSA, for jwt' },
        'introspecting-client': {
          type: 'string',
          value: 'CLIENT_ID',
          multiple: true,
          description: 'a client that may introspect its tokens',
        },
      },
      notes: `Clients ask for it when their allowed_resources name it (clients update). Every option not given goes back
to its default: set replaces the whole entry, as a seed file entry does.`,
      prepare(input) {
        const entry = entryFrom(input);
        checkResourceServerEntry(entry);
        return entry;
      },
      async run(session, input, entry: ResourceServerEntry) {
        const result = await setResource(session.ctx, entry);
        if (input.json) return session.out.json({ ...result.entry, created: result.created });
        session.out.line(`resource server "${entry.identifier}" ${result.created ? 'created' : 'replaced'}`);
      },
    }),
    verb({
      name: 'delete',
      summary: 'Delete a resource server; tokens issued for it stay valid until they expire.',
      args: [IDENTIFIER],
      destructive: true,
      async run(session, input) {
        const identifier = input.args.identifier!;
        await showResource(session.ctx, identifier);
        await session.confirm(`Delete resource server "${identifier}"? Clients can no longer ask tokens for it.`);
        await deleteResource(session.ctx, identifier);
        if (input.json) return session.out.json({ identifier, deleted: true });
        session.out.line(`resource server "${identifier}" deleted`);
      },
    }),
  ],
};
