// sso-admin clients list|show|create|update|rotate-secret|delete, over src/domain/clients/client-admin.ts.
import { asOneChange } from '../../domain/admin/admin.js';
import { NO_ORGANIZATION, setAdminOrganization } from '../../domain/clients/client-admin-organization.js';
import {
  checkClientEntry,
  createClient,
  deleteClient,
  listClients,
  REMOVABLE_CLIENT_FIELDS,
  rotateClientSecret,
  showClient,
  updateClient,
  type RegisteredClient,
} from '../../domain/clients/client-admin.js';
import type { ClientEntry } from '../../domain/client-entry.js';
import { clientJson } from '../../domain/admin/representations.js';
import { UsageError, verb, type Invocation, type Noun, type OptionSpec, type Session } from '../command.js';

/** One option per client field, named after its RFC 7591 metadata name. */
const FIELD_OPTIONS: ReadonlyArray<{
  option: string;
  field: string;
  kind: 'string' | 'list' | 'boolean' | 'json';
  value: string;
  description: string;
}> = [
  { option: 'client-name', field: 'client_name', kind: 'string', value: 'NAME', description: 'the name shown to users' },
  {
    option: 'redirect-uri',
    field: 'redirect_uris',
    kind: 'list',
    value: 'URI',
    description: 'a redirect URI (https; http only on loopback; no fragment)',
  },
  {
    option: 'post-logout-redirect-uri',
    field: 'post_logout_redirect_uris',
    kind: 'list',
    value: 'URI',
    description: 'where logout may send the browser back to',
  },
  {
    option: 'grant-type',
    field: 'grant_types',
    kind: 'list',
    value: 'GRANT',
    description: 'authorization_code (default), refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code',
  },
  { option: 'response-type', field: 'response_types', kind: 'list', value: 'TYPE', description: 'code (the default and only one)' },
  {
    option: 'token-endpoint-auth-method',
    field: 'token_endpoint_auth_method',
    kind: 'string',
    value: 'METHOD',
    description:
      'client_secret_basic (default), client_secret_post, client_secret_jwt, private_key_jwt (with --jwks-uri or --jwks), or none (a public client: no secret, PKCE)',
  },
  {
    option: 'token-endpoint-auth-signing-alg',
    field: 'token_endpoint_auth_signing_alg',
    kind: 'string',
    value: 'ALG',
    description: 'the one alg the client assertions may use (HS256 for client_secret_jwt; PS256, ES256, RS256... for private_key_jwt)',
  },
  {
    option: 'jwks-uri',
    field: 'jwks_uri',
    kind: 'string',
    value: 'URI',
    description: "where the client's public keys are (private_key_jwt)",
  },
  {
    option: 'profile',
    field: 'profile',
    kind: 'string',
    value: 'fapi2',
    description: 'hold the client to the FAPI 2.0 Security Profile (PAR, PKCE, DPoP, private_key_jwt, PS256/ES256/EdDSA)',
  },
  {
    option: 'dpop-bound-access-tokens',
    field: 'dpop_bound_access_tokens',
    kind: 'boolean',
    value: 'true|false',
    description: 'every token request of the client must carry a DPoP proof (RFC 9449 5.2)',
  },
  {
    option: 'allowed-resource',
    field: 'allowed_resources',
    kind: 'list',
    value: 'URI',
    description: 'a resource server (sso-admin resources) the client may ask tokens for (RFC 8707)',
  },
  {
    option: 'default-resource',
    field: 'default_resource',
    kind: 'string',
    value: 'URI',
    description: 'the resource its tokens are for when it names none (one of --allowed-resource)',
  },
  {
    option: 'allowed-groups',
    field: 'allowed_groups',
    kind: 'list',
    value: 'GROUP',
    description:
      'a group (sso-admin groups) whose members alone may sign in to it; repeat for more; --remove allowed_groups lifts the limit',
  },
  { option: 'jwks', field: 'jwks', kind: 'json', value: 'JSON', description: "the client's public keys as a JWK Set (private_key_jwt)" },
  { option: 'scope', field: 'scope', kind: 'string', value: 'SCOPES', description: 'space-separated scopes client_credentials may grant' },
  { option: 'contact', field: 'contacts', kind: 'list', value: 'EMAIL', description: 'a contact for the client' },
  { option: 'logo-uri', field: 'logo_uri', kind: 'string', value: 'URI', description: 'logo_uri' },
  { option: 'client-uri', field: 'client_uri', kind: 'string', value: 'URI', description: 'client_uri' },
  { option: 'policy-uri', field: 'policy_uri', kind: 'string', value: 'URI', description: 'policy_uri' },
  { option: 'tos-uri', field: 'tos_uri', kind: 'string', value: 'URI', description: 'tos_uri' },
  {
    option: 'id-token-signed-response-alg',
    field: 'id_token_signed_response_alg',
    kind: 'string',
    value: 'ALG',
    description: 'RS256 (default), PS256, ES256 or EdDSA',
  },
  {
    option: 'backchannel-logout-uri',
    field: 'backchannel_logout_uri',
    kind: 'string',
    value: 'URI',
    description: 'where logout tokens are posted (Back-Channel Logout 1.0)',
  },
  {
    option: 'backchannel-logout-session-required',
    field: 'backchannel_logout_session_required',
    kind: 'boolean',
    value: 'true|false',
    description: 'the client needs sid in logout tokens',
  },
  {
    option: 'require-pushed-authorization-requests',
    field: 'require_pushed_authorization_requests',
    kind: 'boolean',
    value: 'true|false',
    description: 'its authorization requests must come through the PAR endpoint (RFC 9126)',
  },
  {
    option: 'require-mfa',
    field: 'require_mfa',
    kind: 'boolean',
    value: 'true|false',
    description: 'its users sign in with a second factor (amr mfa), whatever the risk verdict',
  },
  {
    option: 'organization-usage',
    field: 'organization_usage',
    kind: 'string',
    value: 'none|allow|require',
    description: 'whether its sign-ins name an organization (issue 40): none (default), allow, or require (the person picks one)',
  },
  {
    option: 'request-object-signing-alg',
    field: 'request_object_signing_alg',
    kind: 'string',
    value: 'ALG',
    description: 'the one alg its request objects (RFC 9101) may use: PS256, ES256, RS256...',
  },
  {
    option: 'id-token-claims',
    field: 'id_token_claims',
    kind: 'string',
    value: 'scopes|minimal',
    description:
      'scopes: ID tokens carry the claims of the granted scopes; minimal: those claims only at userinfo (default: ID_TOKEN_CLAIMS)',
  },
  {
    option: 'subject-type',
    field: 'subject_type',
    kind: 'string',
    value: 'public|pairwise',
    description: "public (default): sub is the user id; pairwise: a sub of the client's sector's own (OIDC Core 8.1)",
  },
  {
    option: 'sector-identifier-uri',
    field: 'sector_identifier_uri',
    kind: 'string',
    value: 'URI',
    description: 'https URL whose host is the pairwise sector (needed when the redirect URIs have several hosts)',
  },
];

const fieldOptions: Record<string, OptionSpec> = Object.fromEntries(
  FIELD_OPTIONS.map((f) => [
    f.option,
    { type: 'string', value: f.value, description: f.description, ...(f.kind === 'list' ? { multiple: true } : {}) },
  ]),
);

/** The fields the command line sets, in the seed file's format. */
function fieldsFrom(input: Invocation): Partial<ClientEntry> {
  const set: Record<string, unknown> = {};
  for (const f of FIELD_OPTIONS) {
    const value = input.options[f.option];
    if (value === undefined) continue;
    if (f.kind === 'boolean') {
      if (value !== 'true' && value !== 'false') throw new UsageError(`--${f.option} must be true or false`);
      set[f.field] = value === 'true';
    } else if (f.kind === 'json') {
      try {
        set[f.field] = JSON.parse(String(value));
      } catch {
        throw new UsageError(`--${f.option} must be JSON`);
      }
    } else {
      set[f.field] = value;
    }
  }
  return set as Partial<ClientEntry>;
}

const SECRET_STORAGE = { 'hmac-sha256': 'HMAC-SHA256 digest', argon2id: 'argon2id hash' } as const;

function printClient(session: Session, c: RegisteredClient): void {
  const { client_id, client_name, token_endpoint_auth_method, ...rest } = c.entry;
  session.out.fields([
    ['client_id', client_id],
    ['client_name', client_name],
    ['token_endpoint_auth_method', token_endpoint_auth_method],
    [
      'secret',
      c.secretStorage !== null
        ? `set (${SECRET_STORAGE[c.secretStorage]})`
        : token_endpoint_auth_method === 'private_key_jwt'
          ? 'none (private_key_jwt: its public keys)'
          : 'none (public client)',
    ],
    ...Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)),
    ['revision', c.revision],
    ['created', c.createdAt],
    ['updated', c.updatedAt],
  ]);
}

function printSecret(session: Session, clientId: string, secret: string): void {
  session.out.line(`client_secret: ${secret}`);
  session.out.line(`This is the only time the secret of "${clientId}" is shown: only its keyed digest is kept.`);
}

const CLIENT_ID = { name: 'client_id', description: 'the client' } as const;

export const clients: Noun = {
  name: 'clients',
  summary: 'registered applications (relying parties) and their secrets',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every client.',
      async run(session, input) {
        const all = await listClients(session.ctx);
        if (input.json) return session.out.json(all.map(clientJson));
        session.out.table(
          ['client_id', 'name', 'auth method', 'grant types', 'redirect uris', 'revision'],
          all.map((c) => [
            c.entry.client_id,
            c.entry.client_name ?? '-',
            c.entry.token_endpoint_auth_method ?? '-',
            (c.entry.grant_types ?? []).join(','),
            String((c.entry.redirect_uris ?? []).length),
            String(c.revision),
          ]),
          'no clients',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one client, every field but its secret.',
      args: [CLIENT_ID],
      async run(session, input) {
        const client = await showClient(session.ctx, input.args.client_id!);
        if (input.json) session.out.json(clientJson(client));
        else printClient(session, client);
      },
    }),
    verb({
      name: 'create',
      summary: 'Register a client; a confidential one gets a generated secret, printed once.',
      args: [{ name: 'client_id', description: "the new client's id" }],
      options: fieldOptions,
      notes: `The fields and their rules are the seed file's (README, Seeding). The secret has 256 random bits and is
stored only as a keyed digest: copy it from the output, it is never shown again (rotate-secret makes a new one).`,
      prepare(input) {
        const entry = { client_id: input.args.client_id!, ...fieldsFrom(input) } as ClientEntry;
        checkClientEntry(entry);
        return entry;
      },
      async run(session, input, entry: ClientEntry) {
        const { client, clientSecret } = await createClient(session.ctx, entry);
        if (input.json)
          return session.out.json({ ...clientJson(client), ...(clientSecret === undefined ? {} : { client_secret: clientSecret }) });
        session.out.line(`client "${client.entry.client_id}" created (revision ${client.revision})`);
        if (clientSecret !== undefined) printSecret(session, client.entry.client_id, clientSecret);
      },
    }),
    verb({
      name: 'update',
      summary: 'Change fields of a client; instances drop their cached copy of it at once.',
      args: [CLIENT_ID],
      options: {
        ...fieldOptions,
        remove: {
          type: 'string',
          value: 'FIELD',
          multiple: true,
          description: `remove a field, back to its default (${REMOVABLE_CLIENT_FIELDS.join(', ')})`,
        },
        'admin-organization': {
          type: 'string',
          value: 'ORG',
          description: `its admin:* tokens administer this organization only (id or slug; ${NO_ORGANIZATION}: the whole provider)`,
        },
      },
      notes: `A list option replaces the whole list: give every redirect URI the client keeps. The result is checked
as a whole, like a seed file entry. Making a public client confidential (--token-endpoint-auth-method
client_secret_basic) generates a secret, printed once; making it public drops its secret.`,
      prepare(input) {
        const set = fieldsFrom(input);
        const remove = (input.options.remove as string[] | undefined) ?? [];
        const adminOrganization = input.options['admin-organization'] as string | undefined;
        if (Object.keys(set).length === 0 && remove.length === 0 && adminOrganization === undefined)
          throw new UsageError('nothing to change: give a field option, --remove or --admin-organization');
        return { set, remove, adminOrganization };
      },
      async run(session, input, changes: { set: Partial<ClientEntry>; remove: string[]; adminOrganization?: string }) {
        const clientId = input.args.client_id!;
        const result = await asOneChange(session.ctx, async (tctx) => {
          const updated = await updateClient(tctx, clientId, changes);
          if (changes.adminOrganization === undefined) return updated;
          await setAdminOrganization(tctx, clientId, changes.adminOrganization);
          return { ...updated, changed: [...updated.changed, 'admin_organization'], client: await showClient(tctx, clientId) };
        });
        if (input.json) {
          return session.out.json({
            ...clientJson(result.client),
            changed: result.changed,
            ...(result.clientSecret === undefined ? {} : { client_secret: result.clientSecret }),
          });
        }
        if (result.changed.length === 0)
          session.out.line(`client "${input.args.client_id}" unchanged (revision ${result.client.revision})`);
        else
          session.out.line(`client "${input.args.client_id}" updated (revision ${result.client.revision}): ${result.changed.join(', ')}`);
        if (result.clientSecret !== undefined) printSecret(session, input.args.client_id!, result.clientSecret);
      },
    }),
    verb({
      name: 'rotate-secret',
      summary: "Replace a confidential client's secret with a new one, printed once; the old one stops working at once.",
      args: [CLIENT_ID],
      destructive: true,
      notes: 'Tokens already issued to the client stay valid; only the secret changes.',
      async run(session, input) {
        const clientId = input.args.client_id!;
        await showClient(session.ctx, clientId);
        await session.confirm(`Replace the secret of client "${clientId}"? The current secret stops working at once.`);
        const { clientSecret, revision } = await rotateClientSecret(session.ctx, clientId);
        if (input.json) return session.out.json({ client_id: clientId, client_secret: clientSecret, revision });
        session.out.line(`client "${clientId}" has a new secret (revision ${revision})`);
        printSecret(session, clientId, clientSecret);
      },
    }),
    verb({
      name: 'delete',
      summary: 'Delete a client with every code and token it was issued.',
      args: [CLIENT_ID],
      destructive: true,
      notes: 'Its codes, access and refresh tokens, consents and pending requests are deleted with it: none works any more.',
      async run(session, input) {
        const clientId = input.args.client_id!;
        await showClient(session.ctx, clientId);
        await session.confirm(`Delete client "${clientId}" and every code and token issued to it?`);
        const deleted = await deleteClient(session.ctx, clientId);
        if (input.json) {
          return session.out.json({
            client_id: clientId,
            deleted: true,
            access_tokens_revoked: deleted.accessTokens,
            refresh_tokens_revoked: deleted.refreshTokens,
            codes_revoked: deleted.codes,
          });
        }
        session.out.line(
          `client "${clientId}" deleted, with ${deleted.accessTokens} access tokens, ${deleted.refreshTokens} refresh tokens and ${deleted.codes} codes still valid`,
        );
      },
    }),
  ],
};
