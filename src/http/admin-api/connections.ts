// /connections: the upstream identity providers people sign in with (src/domain/connections/connection-admin.ts, as
// `sso-admin connections`). A client secret is taken in a PUT body, sealed, and never answered (has_client_secret).
import { listConnections, removeConnection, setConnection, showConnection } from '../../domain/connections/connection-admin.js';
import type { SeedConnection } from '../../domain/connections/seed-connections.js';
import { entityRoutes } from './entity-routes.js';
import type { AdminApi, JsonSchema } from './route.js';

const STRING = { type: 'string' } as const;
const NULLABLE = { type: ['string', 'null'] } as const;
const STRINGS = { type: 'array', items: STRING } as const;

const VIEW: JsonSchema = {
  type: 'object',
  required: ['id', 'display_name', 'kind', 'client_id', 'has_client_secret', 'enabled', 'redirect_uri', 'links'],
  properties: {
    id: STRING,
    display_name: STRING,
    kind: STRING,
    preset: NULLABLE,
    issuer: NULLABLE,
    authorization_endpoint: NULLABLE,
    token_endpoint: NULLABLE,
    userinfo_endpoint: NULLABLE,
    client_id: STRING,
    has_client_secret: { type: 'boolean' },
    scopes: STRINGS,
    claims: { type: 'object', additionalProperties: true },
    provisioning: STRING,
    email_domains: STRINGS,
    trust_amr: { type: 'boolean' },
    enabled: { type: 'boolean' },
    redirect_uri: { type: 'string', description: 'the callback to register upstream (kind saml: our ACS)' },
    links: { type: 'integer' },
    organization: { type: ['string', 'null'], description: 'the slug of the organization it belongs to; null: provider-wide' },
    organization_id: NULLABLE,
    saml: {
      type: 'object',
      description: 'kind saml: the IdP it trusts, and our SP metadata URL to give its admin',
      additionalProperties: true,
    },
  },
};

/** The seed file's entry (src/domain/connections/seed-connections.ts checks the values). */
const BODY: JsonSchema = {
  type: 'object',
  properties: {
    id: STRING,
    display_name: STRING,
    icon: STRING,
    kind: STRING,
    preset: STRING,
    tenant: STRING,
    issuer: STRING,
    authorization_endpoint: STRING,
    token_endpoint: STRING,
    userinfo_endpoint: STRING,
    client_id: STRING,
    client_secret: { type: 'string', minLength: 1, maxLength: 1024, writeOnly: true },
    scopes: STRINGS,
    claims: { type: 'object', additionalProperties: { type: 'string' } },
    provisioning: STRING,
    email_domains: STRINGS,
    trust_amr: { type: 'boolean' },
    enabled: { type: 'boolean' },
    saml_metadata: { type: 'string', minLength: 1, maxLength: 1048576, description: "kind saml: the IdP's metadata XML" },
    saml_metadata_url: { type: 'string', description: "kind saml: where the IdP's metadata is read and refreshed from" },
    saml_allow_unsolicited: { type: 'boolean' },
    saml_attributes: { type: 'object', additionalProperties: STRINGS },
    organization: {
      type: ['string', 'null'],
      description:
        'the organization it belongs to (slug or id); null or absent: provider-wide. An organization-scoped caller must name its own',
    },
  },
  additionalProperties: false,
};

export function connectionRoutes(api: AdminApi): void {
  entityRoutes(api, {
    path: '/connections',
    param: 'id',
    tag: 'connections',
    noun: 'Connection',
    item: VIEW,
    body: BODY,
    list: listConnections,
    keyOf: (c) => c.id,
    lock: 'connection',
    show: showConnection,
    set: async (ctx, entry) => {
      const done = await setConnection(ctx, entry as unknown as SeedConnection);
      return { item: done.connection, created: done.created };
    },
    remove: removeConnection,
  });
}
