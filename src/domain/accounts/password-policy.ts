// What a new password must be (NIST SP 800-63B 5.1.1.2, "memorized secret verifiers"): long enough, not absurdly
// long, not a common breached password, not the account's own name or address. No composition rules and no expiry,
// which the same section advises against. The one policy for every place a password is set: sign-up, reset, change,
// the seed file and the admin command line.
import type { PasswordPolicySettings } from '../../config.js';
import { CommonPasswordList, normalisedPassword } from './common-passwords.js';
import { text, type Text } from '../../i18n/translate.js';

/** NIST SP 800-63B 5.1.1.2: verifiers SHOULD permit at least 64 characters; we take up to 256 bytes of UTF-8. */
export const MAX_PASSWORD_BYTES = 256;

export const DEFAULT_PASSWORD_POLICY: PasswordPolicySettings = Object.freeze({ minLength: 8 });

/**
 * Why a password was refused: a stable code, the sentence a page shows (in the reader's language), and the
 * clause an admin tool prints after "password" ("password must have at least 8 characters").
 */
export interface PasswordProblem {
  readonly code: 'too-short' | 'too-long' | 'common' | 'personal';
  readonly message: Text;
  readonly detail: string;
}

/** Who the password is for: a password equal to either is refused. */
export interface PasswordOwner {
  readonly username?: string | null;
  readonly email?: string | null;
}

export class PasswordPolicy {
  /** Read from the bundled file on the first check, so that a process that sets no password never loads it. */
  private list: CommonPasswordList | undefined;

  constructor(
    readonly settings: PasswordPolicySettings = DEFAULT_PASSWORD_POLICY,
    private readonly loadList: () => CommonPasswordList = () => CommonPasswordList.load(),
  ) {}

  /** The first reason the password may not be set; undefined when it may. Cheap: no hashing. */
  problem(password: string, owner: PasswordOwner = {}): PasswordProblem | undefined {
    const normalised = password.normalize('NFKC');
    const min = this.settings.minLength;
    if ([...normalised].length < min)
      return {
        code: 'too-short',
        message: text('password.tooShort', { min }),
        detail: `must have at least ${min} characters`,
      };
    if (Buffer.byteLength(normalised, 'utf8') > MAX_PASSWORD_BYTES)
      return {
        code: 'too-long',
        message: text('password.tooLong', { max: MAX_PASSWORD_BYTES }),
        detail: `must be at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`,
      };
    const lowered = normalisedPassword(password);
    const own = [owner.username, owner.email].filter((v): v is string => typeof v === 'string' && v.length > 0);
    if (own.some((value) => normalisedPassword(value) === lowered))
      return {
        code: 'personal',
        message: text('password.personal'),
        detail: 'must not be the username or email',
      };
    this.list ??= this.loadList();
    if (this.list.has(password))
      return {
        code: 'common',
        message: text('password.common'),
        detail: 'is among the most common breached passwords',
      };
    return undefined;
  }
}
