// An organization's branding and policies (issue 40), as the organizations table holds them (one JSON value each,
// read through these functions only): what its sign-in pages look like, and what a sign-in for it must do.
import {
  arrayOf,
  boolean,
  nullable,
  number,
  object,
  oneOf,
  readVersioned,
  string,
  writeVersioned,
  type VersionedShapes,
} from '../../storage/json-shape.js';

/** Shown on the sign-in pages when the sign-in is for the organization. */
export interface OrganizationBranding {
  /** An https URL of the logo (shown as an image; never fetched by the provider). */
  logoUrl: string | null;
  /** #rrggbb */
  primaryColor: string | null;
  /** #rrggbb */
  backgroundColor: string | null;
}

/** Ways in a sign-in for the organization may take. */
export type SignInMethod = 'password' | 'passkey' | 'connection';
export const SIGN_IN_METHODS: readonly SignInMethod[] = ['password', 'passkey', 'connection'];

/** Who may become a member without an admin adding them. */
export type JoinPolicy = 'invitation' | 'domain';
export const JOIN_POLICIES: readonly JoinPolicy[] = ['invitation', 'domain'];

export interface OrganizationPolicies {
  /** A second factor after the password, whatever the risk verdict. */
  requireSecondFactor: boolean;
  /** The ways in its sign-ins may take; all by default. */
  signInMethods: SignInMethod[];
  /** Home-realm discovery sends a person whose address is at a verified domain straight to the organization's connection. */
  enforceConnection: boolean;
  /** The organization's sessions last at most this long (seconds); null: the provider's. */
  sessionLifetimeSeconds: number | null;
  /** invitation: only those invited (or added); domain: also anyone with a verified address at a verified domain. */
  join: JoinPolicy;
}

export const DEFAULT_BRANDING: OrganizationBranding = { logoUrl: null, primaryColor: null, backgroundColor: null };
export const DEFAULT_POLICIES: OrganizationPolicies = {
  requireSecondFactor: false,
  signInMethods: [...SIGN_IN_METHODS],
  enforceConnection: false,
  sessionLifetimeSeconds: null,
  join: 'invitation',
};

const COLOR = /^#[0-9a-f]{6}$/i;
/** An organization's sessions last five minutes at the least, a year at the most. */
const MIN_SESSION_SECONDS = 300;
const MAX_SESSION_SECONDS = 366 * 24 * 3600;

/** The branding as the API, seed file and command line write it (snake_case); each field optional. */
export interface BrandingInput {
  logo_url?: string | null;
  primary_color?: string | null;
  background_color?: string | null;
}

/** The policies as the API, seed file and command line write them (snake_case); each field optional. */
export interface PoliciesInput {
  require_second_factor?: boolean;
  sign_in_methods?: string[];
  enforce_connection?: boolean;
  session_lifetime_seconds?: number | null;
  join?: string;
}

const BRANDING_FIELDS = ['logo_url', 'primary_color', 'background_color'];
const POLICY_FIELDS = ['require_second_factor', 'sign_in_methods', 'enforce_connection', 'session_lifetime_seconds', 'join'];

function unknownFields(input: Record<string, unknown>, known: string[], what: string): string[] {
  return Object.keys(input)
    .filter((k) => !known.includes(k))
    .map((k) => `${what} has no field "${k}"`);
}

/** The branding with `input` applied over `base`, or the problems with `input`. */
export function applyBranding(base: OrganizationBranding, input: unknown): { branding: OrganizationBranding } | { problems: string[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { problems: ['branding must be an object'] };
  const i = input as Record<string, unknown>;
  const problems = unknownFields(i, BRANDING_FIELDS, 'branding');
  const branding = { ...base };
  if (i.logo_url !== undefined) {
    if (i.logo_url === null) branding.logoUrl = null;
    else if (
      typeof i.logo_url !== 'string' ||
      !URL.canParse(i.logo_url) ||
      new URL(i.logo_url).protocol !== 'https:' ||
      i.logo_url.length > 2000
    )
      problems.push('branding.logo_url must be an https URL');
    else branding.logoUrl = i.logo_url;
  }
  for (const [field, key] of [
    ['primary_color', 'primaryColor'],
    ['background_color', 'backgroundColor'],
  ] as const) {
    const value = i[field];
    if (value === undefined) continue;
    if (value === null) branding[key] = null;
    else if (typeof value !== 'string' || !COLOR.test(value)) problems.push(`branding.${field} must be a colour as #rrggbb`);
    else branding[key] = value.toLowerCase();
  }
  return problems.length > 0 ? { problems } : { branding };
}

/** The policies with `input` applied over `base`, or the problems with `input`. */
export function applyPolicies(base: OrganizationPolicies, input: unknown): { policies: OrganizationPolicies } | { problems: string[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { problems: ['policies must be an object'] };
  const i = input as Record<string, unknown>;
  const problems = unknownFields(i, POLICY_FIELDS, 'policies');
  const policies: OrganizationPolicies = { ...base, signInMethods: [...base.signInMethods] };
  for (const [field, key] of [
    ['require_second_factor', 'requireSecondFactor'],
    ['enforce_connection', 'enforceConnection'],
  ] as const) {
    const value = i[field];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') problems.push(`policies.${field} must be true or false`);
    else policies[key] = value;
  }
  if (i.sign_in_methods !== undefined) {
    const m = i.sign_in_methods;
    if (!Array.isArray(m) || m.length === 0 || !m.every((x) => SIGN_IN_METHODS.includes(x as SignInMethod)))
      problems.push(`policies.sign_in_methods must list one or more of ${SIGN_IN_METHODS.join(', ')}`);
    else policies.signInMethods = SIGN_IN_METHODS.filter((x) => m.includes(x));
  }
  if (i.session_lifetime_seconds !== undefined) {
    const s = i.session_lifetime_seconds;
    if (s === null) policies.sessionLifetimeSeconds = null;
    else if (typeof s !== 'number' || !Number.isInteger(s) || s < MIN_SESSION_SECONDS || s > MAX_SESSION_SECONDS)
      problems.push(
        `policies.session_lifetime_seconds must be a whole number of seconds from ${MIN_SESSION_SECONDS} to ${MAX_SESSION_SECONDS}`,
      );
    else policies.sessionLifetimeSeconds = s;
  }
  if (i.join !== undefined) {
    if (i.join !== 'invitation' && i.join !== 'domain') problems.push('policies.join must be "invitation" or "domain"');
    else policies.join = i.join;
  }
  return problems.length > 0 ? { problems } : { policies };
}

/** The branding as its column holds it (version 1: the fields as the API shows them). */
type StoredBranding = ReturnType<typeof brandingView>;
const BRANDING_V1 = object<StoredBranding>({
  logo_url: nullable(string),
  primary_color: nullable(string),
  background_color: nullable(string),
});
export const STORED_BRANDING: VersionedShapes<StoredBranding> = { 1: BRANDING_V1 };

/** The policies as their column holds them (version 1: the fields as the API shows them). */
type StoredPolicies = ReturnType<typeof policiesView>;
const POLICIES_V1 = object<StoredPolicies>({
  require_second_factor: boolean,
  sign_in_methods: arrayOf(oneOf(SIGN_IN_METHODS)),
  enforce_connection: boolean,
  session_lifetime_seconds: nullable(number),
  join: oneOf(JOIN_POLICIES),
});
export const STORED_POLICIES: VersionedShapes<StoredPolicies> = { 1: POLICIES_V1 };

export const writeBranding = (b: OrganizationBranding): string => writeVersioned(brandingView(b), STORED_BRANDING);
export const writePolicies = (p: OrganizationPolicies): string => writeVersioned(policiesView(p), STORED_POLICIES);

/**
 * The branding and policies a row holds, or why they cannot be read (written by a newer version): then the
 * organization is unusable, and a sign-in for it is refused rather than run under policies it does not have.
 */
export function readSettings(stored: {
  branding: unknown;
  policies: unknown;
}): { branding: OrganizationBranding; policies: OrganizationPolicies } | { problem: string } {
  const b = readVersioned(stored.branding, STORED_BRANDING, 'branding');
  if (!b.ok) return { problem: b.reason };
  const p = readVersioned(stored.policies, STORED_POLICIES, 'policies');
  if (!p.ok) return { problem: p.reason };
  return {
    branding: { logoUrl: b.value.logo_url, primaryColor: b.value.primary_color, backgroundColor: b.value.background_color },
    policies: {
      requireSecondFactor: p.value.require_second_factor,
      signInMethods: p.value.sign_in_methods,
      enforceConnection: p.value.enforce_connection,
      sessionLifetimeSeconds: p.value.session_lifetime_seconds,
      join: p.value.join,
    },
  };
}

/** As the API, command line and seed file show them (snake_case, the form they take). */
export const brandingView = (
  b: OrganizationBranding,
): { logo_url: string | null; primary_color: string | null; background_color: string | null } => ({
  logo_url: b.logoUrl,
  primary_color: b.primaryColor,
  background_color: b.backgroundColor,
});
export const policiesView = (
  p: OrganizationPolicies,
): {
  require_second_factor: boolean;
  sign_in_methods: SignInMethod[];
  enforce_connection: boolean;
  session_lifetime_seconds: number | null;
  join: JoinPolicy;
} => ({
  require_second_factor: p.requireSecondFactor,
  sign_in_methods: p.signInMethods,
  enforce_connection: p.enforceConnection,
  session_lifetime_seconds: p.sessionLifetimeSeconds,
  join: p.join,
});
