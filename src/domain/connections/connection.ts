// A connection to an upstream identity provider (issue 19): an OpenID Connect issuer found by discovery, or an OAuth
// 2.0 service with explicit endpoints and a userinfo URL; how its claims map to a local user, and what its first
// sign-in may do (create a user, link to one, or refuse). A SAML identity provider (issue 39) is a third kind, its
// metadata and attribute mapping in connections.saml (src/domain/saml/sp/saml-settings.ts). Rows are mapped and
// checked here; a row that does not fit is left out (and logged), never half-used.
import { FREE_FORM_V1, object, optional, readVersioned, string, type Shape, type VersionedShapes } from '../../storage/json-shape.js';
import type { ConnectionRow } from '../../storage/schema.js';
import type { UserClaim } from '../claims.js';
import { STORED_SAML_SETTINGS, type SamlSettings } from '../saml/sp/saml-settings.js';
import { isPreset, PRESET_DEFAULTS, type Preset } from './presets.js';

export const CONNECTION_KINDS = ['oidc', 'oauth2', 'saml'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/** A first sign-in with no link: make a user from the claims, link to an existing one only, or refuse. */
export const PROVISIONING_MODES = ['create', 'link', 'refuse'] as const;
export type Provisioning = (typeof PROVISIONING_MODES)[number];

/** The upstream claim (userinfo member) each local attribute comes from. */
export interface ClaimMapping {
  subject: string;
  email: string;
  email_verified: string;
  name: string;
  username: string;
  groups: string;
}

export const MAPPING_FIELDS = ['subject', 'email', 'email_verified', 'name', 'username', 'groups'] as const;

/** A mapped claim's name: a string, never empty. */
const claimName: Shape<string> = (value, path) => string(value === '' ? undefined : value, path);

/**
 * Version 1 of connections.claim_mapping: the fields the operator set (the others come from the preset or the
 * default), stored without `v` as before versions were kept, so an older instance reads the bytes it always read.
 */
const MAPPING_V1: Shape<Partial<ClaimMapping>> = (value, path) =>
  object<Partial<ClaimMapping>>({
    subject: optional(claimName),
    email: optional(claimName),
    email_verified: optional(claimName),
    name: optional(claimName),
    username: optional(claimName),
    groups: optional(claimName),
  })(FREE_FORM_V1(value, path), path);

/**
 * The shapes of connections.claim_mapping, handed to its repository. A row that does not fit leaves its connection
 * unusable, with the reason logged and shown by `connections show` and the management API.
 */
export const STORED_CLAIM_MAPPING: VersionedShapes<Partial<ClaimMapping>> = { 1: MAPPING_V1 };

/** By default an upstream's claims are read by the names this provider gives them too (src/domain/claims.ts). */
export const DEFAULT_MAPPING: Readonly<ClaimMapping> = Object.freeze({
  subject: 'sub',
  email: 'email',
  email_verified: 'email_verified',
  name: 'name',
  username: 'preferred_username',
  groups: 'groups',
} satisfies Record<keyof ClaimMapping, UserClaim>);

/** A connection id: the last segment of its callback URL, and what idp_hint names. */
export const CONNECTION_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export interface Connection {
  id: string;
  displayName: string;
  /** The icon the sign-in page shows: the connection's own URL, else its preset's built-in one, else none. */
  icon: string | null;
  kind: ConnectionKind;
  preset: Preset | null;
  issuer: string | null;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userinfoEndpoint: string | null;
  clientId: string;
  /** The sealed client secret (sealed-secrets.ts, purpose connection-secret); null for a public client. */
  secretSealed: Record<string, unknown> | null;
  scopes: string[];
  mapping: ClaimMapping;
  provisioning: Provisioning;
  /** login_hint addresses in these domains are sent straight to this connection. */
  emailDomains: string[];
  /** The upstream's amr and acr are passed on in our ID tokens. */
  trustAmr: boolean;
  /** Each sign-in's upstream tokens are kept on the link, sealed (upstream-tokens.ts). */
  storeTokens: boolean;
  enabled: boolean;
  /** Kind saml only: the IdP and how its attributes map; null for the other kinds. */
  saml: SamlSettings | null;
  /** The organization it belongs to (issue 40): offered only to sign-ins for it; null: to every sign-in. */
  organizationId: string | null;
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** The row as a Connection, its preset's defaults under it; undefined (with why) when a column does not fit. */
export function rowToConnection(row: ConnectionRow): { connection: Connection } | { problem: string } {
  if (!isOneOf(CONNECTION_KINDS, row.kind)) return { problem: 'kind' };
  if (!isOneOf(PROVISIONING_MODES, row.provisioning)) return { problem: 'provisioning' };
  if (row.preset !== null && !isPreset(row.preset)) return { problem: 'preset' };
  const mapping: ClaimMapping = { ...DEFAULT_MAPPING };
  const preset = row.preset === null ? undefined : PRESET_DEFAULTS[row.preset];
  Object.assign(mapping, preset?.mapping);
  const stored = readVersioned(row.claim_mapping, STORED_CLAIM_MAPPING, 'claim_mapping');
  if (!stored.ok) return { problem: stored.reason.includes('claim_mapping') ? stored.reason : `claim_mapping: ${stored.reason}` };
  for (const field of MAPPING_FIELDS) {
    const value = stored.value[field];
    if (value !== undefined) mapping[field] = value;
  }
  let saml: SamlSettings | null = null;
  if (row.kind === 'saml') {
    const read = readVersioned(row.saml, STORED_SAML_SETTINGS, 'saml');
    if (!read.ok) return { problem: read.reason.includes('saml') ? read.reason : `saml: ${read.reason}` };
    saml = read.value;
  }
  const sealed = row.client_secret_sealed;
  if (sealed !== null && (typeof sealed !== 'object' || Array.isArray(sealed))) return { problem: 'client_secret_sealed' };
  return {
    connection: {
      id: row.id,
      displayName: row.display_name,
      icon: row.icon ?? preset?.icon ?? null,
      kind: row.kind,
      preset: row.preset,
      issuer: row.issuer ?? preset?.issuer ?? null,
      authorizationEndpoint: row.authorization_endpoint ?? preset?.authorizationEndpoint ?? null,
      tokenEndpoint: row.token_endpoint ?? preset?.tokenEndpoint ?? null,
      userinfoEndpoint: row.userinfo_endpoint ?? preset?.userinfoEndpoint ?? null,
      clientId: row.client_id,
      secretSealed: sealed,
      scopes: row.scopes,
      mapping,
      provisioning: row.provisioning,
      emailDomains: row.email_domains,
      trustAmr: row.trust_amr,
      storeTokens: row.store_tokens,
      enabled: row.enabled,
      organizationId: row.organization_id ?? null,
      saml,
    },
  };
}

/** The redirect URI registered upstream for this connection. */
export function callbackUrl(issuer: string, connectionId: string): string {
  return `${issuer}/connections/${connectionId}/callback`;
}
