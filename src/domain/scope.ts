// The scopes this provider understands, how a scope parameter is read (RFC 6749 3.3), and the user claims each
// scope releases (OIDC Core 5.4, named as src/domain/claims.ts names them): the vocabulary of authorization, tokens,
// clients and consent alike.
import type { MessageKey } from '../i18n/catalog.js';
import { InvalidScope } from '../errors/oauth-error.js';
import type { UserClaim } from './claims.js';

export const SCOPE_CLAIMS = {
  openid: ['sub'],
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
  // Not an OIDC Core scope: the groups a user belongs to, as Keycloak's and ZITADEL's `groups` claim (an array of
  // names): the user's groups here with those an upstream provider or a directory mapped (src/domain/accounts/users.ts
  // groupsOf).
  groups: ['groups'],
  // Not an OIDC Core scope (issue 40): the member's roles in the organization the sign-in was for, as the `org_roles`
  // claim (src/domain/tokens/organization-claims.ts); no user claim.
  org_roles: [],
  // OIDC Core 11: asks for a refresh token; releases no claim.
  offline_access: [],
} as const satisfies Record<string, readonly UserClaim[]>;

export type Scope = keyof typeof SCOPE_CLAIMS;

export const SUPPORTED_SCOPES = Object.keys(SCOPE_CLAIMS) as Scope[];

/** What the consent page says each scope asks for: a key of the catalogs (src/i18n/locales/). */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, MessageKey>> = {
  openid: 'scope.openid',
  profile: 'scope.profile',
  email: 'scope.email',
  address: 'scope.address',
  phone: 'scope.phone',
  groups: 'scope.groups',
  org_roles: 'scope.org_roles',
  offline_access: 'scope.offline_access',
};

function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPE_CLAIMS, value);
}

/** The most values one authorization request's scope may list; more is refused, not truncated. */
export const MAX_SCOPE_VALUES = 50;

/**
 * RFC 6749 3.3: a space-delimited list. OIDC Core 3.1.2.1: "Scope values used that are not understood
 * by an implementation SHOULD be ignored." Returns the understood scopes, deduplicated, in a stable order.
 * More than MAX_SCOPE_VALUES values, understood or not, is invalid_scope (RFC 6749 4.1.2.1: "The requested
 * scope is invalid, unknown, or malformed").
 */
export function parseScope(raw: string | undefined): Scope[] {
  const values = (raw ?? '').split(' ').filter(Boolean);
  if (values.length > MAX_SCOPE_VALUES) throw new InvalidScope(`the scope parameter lists more than ${MAX_SCOPE_VALUES} values`);
  const asked = new Set(values);
  return SUPPORTED_SCOPES.filter((s) => asked.has(s) && isScope(s));
}

/** The user claims the scopes release, `sub` with openid. */
export function claimNamesFor(scopes: readonly string[]): Set<UserClaim> {
  const names = new Set<UserClaim>();
  for (const scope of scopes) if (isScope(scope)) for (const claim of SCOPE_CLAIMS[scope]) names.add(claim);
  return names;
}

/**
 * RFC 6749 3.3: the values of a scope parameter, deduplicated, as the client wrote them (unknown values kept).
 * For comparing a requested scope with a granted or registered one, where nothing may be silently dropped.
 */
export function splitScope(raw: string): string[] {
  return [...new Set(raw.split(' ').filter(Boolean))];
}
