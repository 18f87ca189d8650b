// The user entry: a user as every administering surface gives one (the seed file, the command line, the management
// API, the console, SCIM through the admin's functions): its fields, its checks, and the columns it is stored in.
import { PasswordPolicy } from './accounts/password-policy.js';
import { claimValueProblem, isEmailClaimValue, isSettableClaim } from './claims.js';

/** The console roles (issue 20): admin may do everything, auditor may read only; `none` takes a role away. */
export const ADMIN_ROLES = ['admin', 'auditor', 'none'] as const;
export type AdminRoleChoice = (typeof ADMIN_ROLES)[number];

export function isAdminRoleChoice(value: unknown): value is AdminRoleChoice {
  return typeof value === 'string' && (ADMIN_ROLES as readonly string[]).includes(value);
}

export interface UserEntry {
  username: string;
  password: string;
  email?: string;
  email_verified?: boolean;
  /** Issue 20: the console role; absent leaves the stored role alone, `none` takes it away. Not a claim. */
  role?: AdminRoleChoice;
  /** The claims an admin may set (src/domain/claims.ts). */
  [claim: string]: unknown;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The problems of one user entry, each labelled with `where` (as `users[0]`) and the entry's username when it has
 * one; unlabelled when `where` is empty. The password is held to `policy` (PASSWORD_MIN_LENGTH's, when the caller has
 * the configuration), else to the default one.
 */
export function userEntryProblems(raw: unknown, policy: PasswordPolicy = new PasswordPolicy(), where = ''): string[] {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where} must be an object`);
    return problems;
  }
  const u = raw as Record<string, unknown>;
  const label = isString(u.username) ? `${where} (username "${u.username}")` : where;
  const bad = (msg: string) => problems.push(where === '' ? msg : `${label}: ${msg}`);
  if (!isString(u.username)) bad('username must be a non-empty string');
  if (!isString(u.password)) bad('password must be a non-empty string');
  else {
    const owner = {
      username: typeof u.username === 'string' ? u.username : undefined,
      email: typeof u.email === 'string' ? u.email : undefined,
    };
    const problem = policy.problem(u.password, owner);
    if (problem) bad(`password ${problem.detail}`);
  }
  for (const [key, value] of Object.entries(u)) {
    if (key === 'username' || key === 'password') continue;
    if (key === 'role') {
      if (!isAdminRoleChoice(value)) bad('role must be "admin", "auditor" or "none"');
      continue;
    }
    if (isSettableClaim(key)) {
      const problem = claimValueProblem(key, value);
      if (problem) bad(problem);
    } else {
      bad(`unknown field "${key}" (user entries take username, password and OIDC Core 5.1 standard claims)`);
    }
  }
  if (typeof u.email === 'string' && !isEmailClaimValue(u.email)) bad('email is not an email address');
  return problems;
}

/** The columns of a validated user entry; its password goes in already hashed. */
export function userColumns(entry: UserEntry, passwordHash: string) {
  const { username, password: _password, email, email_verified, role: _role, ...claims } = entry;
  return { username, password_hash: passwordHash, email: email ?? null, email_verified: email_verified ?? false, claims };
}
