// What a preset fills in for a connection: the upstream's endpoints (or its issuer, for discovery), the scopes and
// the claim mapping, as each provider documents them. Every URL can still be overridden on the connection, so that a
// test (or a GitHub Enterprise server) can stand in for the real service.
import type { ClaimMapping, ConnectionKind } from './connection.js';

export const PRESETS = ['google', 'microsoft', 'github', 'gitlab'] as const;
export type Preset = (typeof PRESETS)[number];

export interface PresetDefaults {
  kind: ConnectionKind;
  displayName: string;
  /** An OIDC issuer (discovery at {issuer}/.well-known/openid-configuration). */
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  scopes: string[];
  mapping: Partial<ClaimMapping>;
  /** A small built-in icon (a data: URL), used when the connection names none. */
  icon: string;
}

/** A one-letter badge as an SVG data URL: no request leaves the sign-in page for a preset's icon. */
function badge(letter: string, colour: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><rect width="20" height="20" rx="4" fill="${colour}"/><text x="10" y="15" font-family="sans-serif" font-size="14" font-weight="bold" fill="#fff" text-anchor="middle">${letter}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/**
 * Microsoft identity platform v2.0: the common, organizations and consumers endpoints publish the issuer
 * `https://login.microsoftonline.com/{tenantid}/v2.0`; an ID token's `iss` carries the tenant of the account, also
 * given as its `tid` claim, and is checked against the template with `{tenantid}` replaced by `tid`
 * (Microsoft identity platform, "ID token claims reference", iss and tid; "Validate tokens").
 */
export const MICROSOFT_TENANT_PLACEHOLDER = '{tenantid}';

export const PRESET_DEFAULTS: Readonly<Record<Preset, PresetDefaults>> = Object.freeze({
  google: {
    kind: 'oidc',
    displayName: 'Google',
    issuer: 'https://accounts.google.com',
    scopes: ['openid', 'email', 'profile'],
    mapping: {},
    icon: badge('G', '#4285f4'),
  },
  microsoft: {
    kind: 'oidc',
    displayName: 'Microsoft',
    // `common`: work or school and personal accounts; a tenant id, `organizations` or `consumers` narrows it.
    issuer: 'https://login.microsoftonline.com/common/v2.0',
    scopes: ['openid', 'email', 'profile'],
    // Entra ID's `email` is not verified by Microsoft for every account; preferred_username names the sign-in.
    mapping: { username: 'preferred_username' },
    icon: badge('M', '#2f2f2f'),
  },
  github: {
    kind: 'oauth2',
    displayName: 'GitHub',
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    tokenEndpoint: 'https://github.com/login/oauth/access_token',
    // GitHub REST API "Get the authenticated user"; the addresses come from "List email addresses for the
    // authenticated user" ({userinfo}/emails), of which only the primary and verified one is taken.
    userinfoEndpoint: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
    mapping: { subject: 'id', username: 'login', name: 'name' },
    icon: badge('H', '#24292f'),
  },
  gitlab: {
    kind: 'oidc',
    displayName: 'GitLab',
    issuer: 'https://gitlab.com',
    scopes: ['openid', 'email', 'profile'],
    mapping: { username: 'nickname', groups: 'groups' },
    icon: badge('L', '#fc6d26'),
  },
});

export function isPreset(value: unknown): value is Preset {
  return typeof value === 'string' && (PRESETS as readonly string[]).includes(value);
}
