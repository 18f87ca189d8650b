// sso-admin connections list|show|add|remove|links|unlink, over src/domain/connections/connection-admin.ts: the
// upstream identity providers people may sign in through (issue 19), and the links of their accounts.
import {
  checkConnectionEntry,
  keptTokensOf,
  linksOfUser,
  listConnections,
  removeConnection,
  setConnection,
  showConnection,
  unlinkUser,
  type ConnectionView,
} from '../../domain/connections/connection-admin.js';
import type { ClaimMapping, ConnectionKind, Provisioning } from '../../domain/connections/connection.js';
import type { Preset } from '../../domain/connections/presets.js';
import type { SeedConnection } from '../../domain/connections/seed-connections.js';
import { readFile } from 'node:fs/promises';
import { iso } from '../output.js';
import { UsageError, verb, type Invocation, type Noun, type Session } from '../command.js';
import type { Terminal } from '../terminal.js';

const ID = { name: 'id', description: 'the connection id: lowercase letters, digits, "-" or "_" (its callback URL ends with it)' } as const;
const USER = { name: 'user', description: 'username, email address or user id' } as const;

const str = (input: Invocation, name: string) => input.options[name] as string | undefined;
const list = (input: Invocation, name: string) => input.options[name] as string[] | undefined;

/** The entry the options describe; the client secret read from stdin (never from the command line, which ps shows). */
async function entryFrom(input: Invocation, terminal: Terminal): Promise<SeedConnection> {
  const claims: Partial<ClaimMapping> = {};
  for (const item of list(input, 'claim') ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError('--claim takes FIELD=CLAIM, e.g. username=login');
    (claims as Record<string, string>)[item.slice(0, eq)] = item.slice(eq + 1);
  }
  let secret: string | undefined;
  if (input.options['client-secret-stdin'] === true) {
    secret = (await terminal.readAll()).replace(/\r?\n$/, '');
    if (secret === '') throw new UsageError('--client-secret-stdin read nothing from stdin');
  }
  const attributes: Record<string, string[]> = {};
  for (const item of list(input, 'attribute') ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError('--attribute takes FIELD=NAME, e.g. email=urn:oid:0.9.2342.19200300.100.1.3');
    (attributes[item.slice(0, eq)] ??= []).push(item.slice(eq + 1));
  }
  const metadataFile = str(input, 'metadata-file');
  let metadata: string | undefined;
  if (metadataFile !== undefined) {
    try {
      metadata = await readFile(metadataFile, 'utf8');
    } catch {
      throw new UsageError(`--metadata-file ${metadataFile} cannot be read`);
    }
  }
  const scopes = str(input, 'scopes');
  const entry: Record<string, unknown> = {
    id: input.args.id!,
    display_name: str(input, 'display-name'),
    icon: str(input, 'icon'),
    kind: str(input, 'kind') as ConnectionKind | undefined,
    preset: str(input, 'preset') as Preset | undefined,
    tenant: str(input, 'tenant'),
    issuer: str(input, 'issuer'),
    authorization_endpoint: str(input, 'authorization-endpoint'),
    token_endpoint: str(input, 'token-endpoint'),
    userinfo_endpoint: str(input, 'userinfo-endpoint'),
    client_id: str(input, 'client-id'),
    client_secret: secret,
    scopes: scopes === undefined ? undefined : scopes.split(/\s+/).filter(Boolean),
    claims: Object.keys(claims).length > 0 ? claims : undefined,
    provisioning: str(input, 'provisioning') as Provisioning | undefined,
    email_domains: list(input, 'email-domain'),
    trust_amr: input.options['trust-amr'] === true ? true : undefined,
    store_tokens: input.options['store-tokens'] === true ? true : undefined,
    enabled: input.options.disabled === true ? false : undefined,
    saml_metadata: metadata,
    saml_metadata_url: str(input, 'metadata-url'),
    saml_allow_unsolicited: input.options['allow-unsolicited'] === true ? true : undefined,
    saml_attributes: Object.keys(attributes).length > 0 ? attributes : undefined,
    organization: str(input, 'organization'),
  };
  for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key];
  return entry as unknown as SeedConnection;
}

function printConnection(session: Session, c: ConnectionView): void {
  session.out.fields([
    ['id', c.id],
    ['display_name', c.display_name],
    ['kind', c.kind],
    ['preset', c.preset],
    ['issuer', c.issuer],
    ['authorization_endpoint', c.authorization_endpoint],
    ['token_endpoint', c.token_endpoint],
    ['userinfo_endpoint', c.userinfo_endpoint],
    ['client_id', c.client_id],
    ['client_secret', c.has_client_secret ? '(set, sealed)' : '(none)'],
    ['scopes', c.scopes.join(' ')],
    [
      'claims',
      Object.entries(c.claims)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ],
    ['provisioning', c.provisioning],
    ['email_domains', c.email_domains.join(' ') || null],
    ['trust_amr', c.trust_amr],
    ['store_tokens', c.store_tokens],
    ['enabled', c.enabled],
    ['redirect_uri', c.redirect_uri],
    ['links', c.links],
    ['organization', c.organization ?? '(provider-wide)'],
    ...(c.saml
      ? ([
          ['saml_idp_entity_id', c.saml.idp_entity_id],
          ['saml_sso_url', `${c.saml.sso_url} (${c.saml.sso_binding})`],
          ['saml_slo_url', c.saml.slo_url],
          ['saml_signing_certificates', c.saml.signing_certificates],
          ['saml_metadata_url', c.saml.metadata_url],
          ['saml_metadata_refreshed_at', c.saml.metadata_refreshed_at],
          ['saml_allow_unsolicited', c.saml.allow_unsolicited],
          ['saml_sp_metadata', c.saml.sp_metadata_url],
        ] as const)
      : []),
  ]);
}

export const connections: Noun = {
  name: 'connections',
  summary: 'upstream identity providers people sign in through (OpenID Connect, OAuth 2.0; Google, Microsoft, GitHub, GitLab)',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every connection.',
      async run(session, input) {
        const all = await listConnections(session.ctx);
        if (input.json) return session.out.json(all);
        session.out.table(
          ['id', 'name', 'kind', 'preset', 'provisioning', 'enabled', 'links'],
          all.map((c) => [c.id, c.display_name, c.kind, c.preset ?? '-', c.provisioning, c.enabled ? 'yes' : 'no', String(c.links)]),
          'no connections',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one connection, with the redirect URI to register at the upstream.',
      args: [ID],
      async run(session, input) {
        const c = await showConnection(session.ctx, input.args.id!);
        if (input.json) session.out.json(c);
        else printConnection(session, c);
      },
    }),
    verb({
      name: 'add',
      summary: 'Add a connection, or replace every field of an existing one.',
      args: [ID],
      options: {
        preset: { type: 'string', value: 'PRESET', description: 'google, microsoft, github or gitlab: fills endpoints, scopes and claims' },
        kind: {
          type: 'string',
          value: 'KIND',
          description: 'oidc (discovery from --issuer), oauth2 (explicit endpoints) or saml (from --metadata-file or --metadata-url)',
        },
        'metadata-file': { type: 'string', value: 'FILE', description: "saml: the IdP's metadata XML" },
        'metadata-url': { type: 'string', value: 'URL', description: "saml: where the IdP's metadata is read and refreshed from" },
        'allow-unsolicited': { type: 'boolean', description: 'saml: take IdP-initiated (unsolicited) responses' },
        attribute: {
          type: 'string',
          value: 'FIELD=NAME',
          multiple: true,
          description: 'saml: read email, given_name, family_name, name, username or groups from this attribute first',
        },
        'display-name': { type: 'string', value: 'NAME', description: 'what the sign-in button says after "Sign in with"' },
        icon: { type: 'string', value: 'URL', description: 'an https or data:image URL for the button (presets have one)' },
        tenant: { type: 'string', value: 'TENANT', description: 'microsoft: a tenant id, common (default), organizations or consumers' },
        issuer: { type: 'string', value: 'URL', description: 'the OpenID Connect issuer (oidc)' },
        'authorization-endpoint': { type: 'string', value: 'URL', description: 'oauth2, or an override' },
        'token-endpoint': { type: 'string', value: 'URL', description: 'oauth2, or an override' },
        'userinfo-endpoint': { type: 'string', value: 'URL', description: 'oauth2, or an override' },
        'client-id': { type: 'string', value: 'ID', description: 'our client id at the upstream (oidc, oauth2)' },
        'client-secret-stdin': { type: 'boolean', description: 'read our client secret from stdin (it is stored sealed)' },
        scopes: { type: 'string', value: '"S1 S2"', description: "the scopes asked for (default: the preset's, or openid email profile)" },
        claim: {
          type: 'string',
          value: 'FIELD=CLAIM',
          multiple: true,
          description: 'map subject, email, email_verified, name, username or groups',
        },
        provisioning: { type: 'string', value: 'MODE', description: 'create (default), link or refuse: what a first sign-in may do' },
        'email-domain': { type: 'string', value: 'DOMAIN', multiple: true, description: 'a login_hint in this domain goes straight here' },
        'trust-amr': { type: 'boolean', description: "pass the upstream's amr and acr values on in our ID tokens" },
        'store-tokens': {
          type: 'boolean',
          description: 'keep each sign-in\'s upstream tokens, encrypted (needs KEYS_ENCRYPTION_SECRET); read with "tokens"',
        },
        disabled: { type: 'boolean', description: 'keep it off the sign-in page' },
        organization: {
          type: 'string',
          value: 'ORG',
          description: 'the organization it belongs to (slug or id); without it: provider-wide',
        },
      },
      notes: `Register the redirect URI that "show" prints at the upstream: {issuer}/connections/<id>/callback. Every
option not given goes back to its default: add replaces the whole entry, as a seed file entry does. A saml connection
is read from its IdP's metadata; give the IdP our SP metadata, {issuer}/connections/<id>/saml/metadata.`,
      async prepare(input, terminal) {
        const entry = await entryFrom(input, terminal);
        checkConnectionEntry(entry);
        return entry;
      },
      async run(session, input, entry: SeedConnection) {
        const result = await setConnection(session.ctx, entry);
        if (input.json) return session.out.json({ ...result.connection, created: result.created });
        session.out.line(
          `connection "${entry.id}" ${result.created ? 'added' : 'replaced'}; register ${result.connection.redirect_uri} upstream`,
        );
      },
    }),
    verb({
      name: 'remove',
      summary: 'Remove a connection and every link to it; the accounts stay.',
      args: [ID],
      destructive: true,
      async run(session, input) {
        const id = input.args.id!;
        const shown = await showConnection(session.ctx, id);
        await session.confirm(`Remove connection "${id}" and its ${shown.links} link(s)? Its people sign in another way from now on.`);
        await removeConnection(session.ctx, id);
        if (input.json) return session.out.json({ id, removed: true });
        session.out.line(`connection "${id}" removed`);
      },
    }),
    verb({
      name: 'links',
      summary: "List a user's links to upstream accounts.",
      args: [USER],
      async run(session, input) {
        const links = await linksOfUser(session.ctx, input.args.user!);
        if (input.json) return session.out.json(links);
        session.out.table(
          ['connection', 'subject', 'linked', 'last used', 'tokens kept'],
          links.map((l) => [
            l.connection,
            l.subject,
            iso(l.created_at),
            iso(l.last_used_at),
            l.tokens_stored_at ? iso(l.tokens_stored_at) : '-',
          ]),
          'no links',
        );
      },
    }),
    verb({
      name: 'tokens',
      summary: "Print the upstream tokens kept for a user's link to a connection (store_tokens).",
      args: [USER, ID],
      notes: `The tokens of the user's last sign-in through the connection, for calling the upstream's API on their behalf.
They are secrets: the command prints them on stdout only, and the read is logged (without them).`,
      async run(session, input) {
        const { user, id } = input.args as { user: string; id: string };
        const kept = await keptTokensOf(session.ctx, user, id);
        if (input.json) return session.out.json(kept);
        if (kept.length === 0) return session.out.line(`no tokens are kept for "${user}" at "${id}"`);
        for (const k of kept) session.out.fields([['subject', k.subject], ['stored_at', iso(k.stored_at)], ...Object.entries(k.tokens)]);
      },
    }),
    verb({
      name: 'unlink',
      summary: "Remove a user's link to a connection.",
      args: [USER, ID],
      destructive: true,
      async run(session, input) {
        const { user, id } = input.args as { user: string; id: string };
        await session.confirm(`Unlink user "${user}" from connection "${id}"?`);
        const removed = await unlinkUser(session.ctx, user, id);
        if (input.json) return session.out.json({ user, connection: id, removed });
        session.out.line(`${removed} link(s) of "${user}" to "${id}" removed`);
      },
    }),
  ],
};
