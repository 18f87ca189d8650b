// The claim vocabulary every feature shares: the user claims this provider knows (OIDC Core 5.1 and its own `groups`),
// their types, who gives their values, the rules an admin's value must meet, and the claims an ID token carries of
// its own (OIDC Core 2). Which scope releases which claim is src/domain/scope.ts (OIDC Core 5.4), in these names.
import { FREE_FORM_V1, type VersionedShapes } from '../storage/json-shape.js';

/** OIDC Core 5.1's Type column: a JSON string, boolean or number, the address object (5.1.1), or a list of strings. */
export type ClaimType = 'string' | 'boolean' | 'number' | 'address' | 'string-list';

interface ClaimSpec {
  type: ClaimType;
  /** One of OIDC Core 5.1's standard claims. */
  standard: boolean;
  /**
   * An admin may give it in a user entry (the seed file, the command line, the management API, the console). The
   * others are the provider's own (sub, updated_at) or mapped from an upstream provider or a directory (groups).
   */
  settable: boolean;
}

/**
 * Every user claim, in the order of the scopes that release them (discovery's claims_supported lists them so).
 * `email` and `email_verified` are kept in the user's own columns, the others in users.claims; `locale` also comes
 * from the language the user last chose (src/domain/accounts/users.ts claimValue).
 */
export const USER_CLAIMS = {
  sub: { type: 'string', standard: true, settable: false },
  name: { type: 'string', standard: true, settable: true },
  family_name: { type: 'string', standard: true, settable: true },
  given_name: { type: 'string', standard: true, settable: true },
  middle_name: { type: 'string', standard: true, settable: true },
  nickname: { type: 'string', standard: true, settable: true },
  preferred_username: { type: 'string', standard: true, settable: true },
  profile: { type: 'string', standard: true, settable: true },
  picture: { type: 'string', standard: true, settable: true },
  website: { type: 'string', standard: true, settable: true },
  gender: { type: 'string', standard: true, settable: true },
  birthdate: { type: 'string', standard: true, settable: true },
  zoneinfo: { type: 'string', standard: true, settable: true },
  locale: { type: 'string', standard: true, settable: true },
  updated_at: { type: 'number', standard: true, settable: false },
  email: { type: 'string', standard: true, settable: true },
  email_verified: { type: 'boolean', standard: true, settable: true },
  address: { type: 'address', standard: true, settable: true },
  phone_number: { type: 'string', standard: true, settable: true },
  phone_number_verified: { type: 'boolean', standard: true, settable: true },
  // Not an OIDC Core claim: the names of the user's groups, as Keycloak's and ZITADEL's `groups` claim.
  groups: { type: 'string-list', standard: false, settable: false },
} as const satisfies Record<string, ClaimSpec>;

export type UserClaim = keyof typeof USER_CLAIMS;

/** The claims an admin may give in a user entry. */
export type SettableClaim = { [C in UserClaim]: (typeof USER_CLAIMS)[C]['settable'] extends true ? C : never }[UserClaim];

export const USER_CLAIM_NAMES = Object.keys(USER_CLAIMS) as UserClaim[];

export function isUserClaim(name: string): name is UserClaim {
  return Object.hasOwn(USER_CLAIMS, name);
}

export function isSettableClaim(name: string): name is SettableClaim {
  return isUserClaim(name) && USER_CLAIMS[name].settable;
}

/**
 * OIDC Core 2 (and 3.1.3.6 at_hash, Back-Channel Logout 2.1 sid): what an ID token carries of its own, beside the
 * user claims (src/domain/tokens/id-token.ts signIdToken sets them).
 */
export const ID_TOKEN_CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'sid', 'amr', 'acr'] as const;

/**
 * OIDC Discovery 3 claims_supported: "the Claim Names of the Claims that the OpenID Provider MAY be able to supply
 * values for": the ID token's own, then every user claim (each released by a scope, src/domain/scope.ts).
 */
export const CLAIMS_SUPPORTED: readonly string[] = [...new Set<string>([...ID_TOKEN_CLAIMS, ...USER_CLAIM_NAMES])];

/** OIDC Core 5.1.1: the members of the address claim, each a string. */
export const ADDRESS_FIELDS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;

/** What an admin's value of a settable claim must be, by its type; undefined when it fits. */
export function claimValueProblem(name: SettableClaim, value: unknown): string | undefined {
  switch (USER_CLAIMS[name].type) {
    case 'string':
      return typeof value === 'string' ? undefined : `${name} must be a string`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name} must be true or false`;
    case 'address': {
      const ok =
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.entries(value).every(([k, v]) => (ADDRESS_FIELDS as readonly string[]).includes(k) && typeof v === 'string');
      return ok ? undefined : `address must be an object with string fields among ${ADDRESS_FIELDS.join(', ')}`;
    }
  }
}

/**
 * The email claim as a user entry or a directory gives it: something, an @, something, no spaces. Deliberately
 * loose (an operator's or a directory's address is theirs to know); the sign-up form's rule is stricter
 * (src/domain/accounts/signup.ts).
 */
export function isEmailClaimValue(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value);
}

/**
 * The shapes of a user's stored claims (users.claims, read back through them by src/storage/user-claim-columns.ts and
 * src/storage/access-tokens.ts on the token and userinfo paths). Version 1 is any JSON object, stored without `v`:
 * each claim's value is checked where it is released (groupsOf), not walked on every read, so that the check costs
 * an object test and a version test. A user whose claims do not fit has none of them released.
 */
export const STORED_USER_CLAIMS: VersionedShapes<Record<string, unknown>> = { 1: FREE_FORM_V1 };
