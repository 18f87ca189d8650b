// Self-service sign-up (SIGNUP=open) and invitations (SIGNUP=invite). An open sign-up creates no user: it waits,
// with its password already hashed, until the address is verified by the mailed link or by the six-digit code typed
// in the browser that signed up; only then is the user made, verified, and that browser signed in. So an address
// nobody verified never holds an account, and a second sign-up with a registered address tells nobody but the
// address's owner ("you already have an account"), with the same page and the same work as a new one.
// Flood and bots: sign-ups are counted per network in the database before any work, and the risk engine's device
// reasons (AUTOMATION, UA_HINTS_MISMATCH) and network velocity make a verdict; BLOCK refuses the sign-up, CHALLENGE
// lets it through, since verifying the address is the challenge. An invitation was mailed to its address, so
// following it proves the address: its account is created at once.
import type { Locale } from '../../i18n/catalog.js';
import { text, type Text } from '../../i18n/translate.js';
import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ThrottlePolicy } from '../../config.js';
import {
  acceptInvitation,
  createInvitation,
  createSignup,
  findInvitation,
  claimSignupCodeTry,
  verifySignup,
  type SignupVerification as StoredVerification,
} from '../../storage/signups.js';
import { findUserByUsername } from '../../storage/users.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter } from '../network-counter.js';
import type { DeviceIdentity } from '../risk/device-identity.js';
import { verdictOf } from '../risk/evaluate.js';
import type { RiskReason } from '../risk/verdict.js';
import { randomToken, sha256 } from '../secrets.js';
import type { Db } from '../../storage/database.js';
import { emitUserEventById } from '../webhooks/emit.js';

/** What a verification comes to; a sign-up this version does not read is told as unusable (and logged). */
export type SignupVerification = Exclude<StoredVerification, { kind: 'unreadable' }>;

/** Sign-ups from one network (IPv6: a /64): 10 free, then a minute, doubling up to an hour between them. */
export const SIGNUP_NETWORK_POLICY: ThrottlePolicy = Object.freeze({ freeAttempts: 10, lockBaseSeconds: 60, lockMaxSeconds: 3600 });
/** Tries of the code (wrong ones, in effect: a right one spends the sign-up) before only its link verifies it. */
export const MAX_SIGNUP_CODE_FAILURES = 5;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const INTERACTION_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
/** RFC 5321 4.5.3.1.3: a path is at most 256 octets, so an address at most 254; one @, no spaces. */
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const USERNAME_PATTERN = /^[^\s@]{1,64}$/u;

export type SignupField = 'email' | 'name' | 'username' | 'password' | 'repeat';
export interface FieldProblem {
  field: SignupField;
  /** In the reader's language when the page shows it. */
  message: Text;
}

export interface SignupForm {
  email: string;
  name: string;
  /** SIGNUP_USERNAME=optional only; blank takes the address. */
  username?: string | undefined;
  password: string;
  repeat: string;
  interactionId?: string | undefined;
  /** An invitation's token: the address is the invitation's, whatever the form says. */
  invite?: string | undefined;
  /** The language the person asked the page in: the mail speaks it. */
  locale?: Locale | undefined;
}

export type SignupResult =
  /** Waiting for the address to be verified; or so it seems, when the address was an account's already. */
  | { kind: 'pending'; signupId: string }
  /** An invitation's account, created and verified. */
  | { kind: 'created'; userId: string }
  | { kind: 'invalid'; problems: FieldProblem[] }
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'refused' }
  | { kind: 'invitation-unusable' }
  | { kind: 'taken' };

const codeDigest = (ctx: ProviderContext, signupId: string, code: string) =>
  createHmac('sha256', ctx.deviceSecret).update(`signup-code\u0000${signupId}\u0000${code}`).digest('base64url');

export const signupVerifyUrl = (issuer: string, token: string) => `${issuer}/account/signup/verify?token=${token}`;
export const invitationUrl = (issuer: string, token: string) => `${issuer}/account/signup?invite=${token}`;

/** The address of a usable invitation, for the form to show fixed. */
export async function invitationAddress(ctx: ProviderContext, token: string | undefined): Promise<string | undefined> {
  if (!token || !TOKEN_PATTERN.test(token)) return undefined;
  return findInvitation(ctx.db, sha256(token), ctx.clock());
}

/** The form's problems, field by field (the password policy's included); none when it may be submitted. */
async function formProblems(ctx: ProviderContext, form: SignupForm & { email: string }, username: string): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (form.email.length > 254 || !EMAIL_PATTERN.test(form.email)) problems.push({ field: 'email', message: text('email.invalid') });
  const name = form.name.trim();
  if (name === '' || name.length > 200) problems.push({ field: 'name', message: text('signup.badName') });
  if (username !== form.email) {
    if (!USERNAME_PATTERN.test(username)) {
      problems.push({ field: 'username', message: text('signup.badUsername') });
    } else if (await findUserByUsername(ctx.db, username)) {
      // Usernames are shown to others (the consent page says who is signed in): saying one is taken reveals no address.
      problems.push({ field: 'username', message: text('signup.usernameTaken') });
    }
  }
  const weak = ctx.passwordPolicy.problem(form.password, { username, email: form.email });
  if (weak) problems.push({ field: 'password', message: weak.message });
  else if (form.password !== form.repeat) problems.push({ field: 'repeat', message: text('password.mismatch') });
  return problems;
}

/**
 * The risk engine on a sign-up: the device reasons the sign-in uses, and VELOCITY_NETWORK when the network's
 * sign-ups (counted by the throttle) pass RISK_NETWORK_VELOCITY. BLOCK refuses the sign-up.
 */
function blocked(ctx: ProviderContext, device: DeviceIdentity, networkSignups: number): boolean {
  const policy = ctx.config.risk;
  const reasons: RiskReason[] = [];
  if (device.automation) reasons.push('AUTOMATION');
  if (device.hintsMismatch) reasons.push('UA_HINTS_MISMATCH');
  if (networkSignups > policy.networkVelocity) reasons.push('VELOCITY_NETWORK');
  const verdict = verdictOf(reasons, policy, { id: null, label: device.label, known: false, trusted: false });
  if (verdict.action === 'BLOCK')
    ctx.log.info({ event: 'signup_blocked', reasons, score: verdict.score }, 'sign-up refused by the risk evaluation');
  return verdict.action === 'BLOCK';
}

export async function signUp(ctx: ProviderContext, form: SignupForm, ip: string, device: DeviceIdentity): Promise<SignupResult> {
  const now = ctx.clock();
  const network = await claimNetworkCounter(ctx, 'signup-ip', ip, ctx.config.signInThrottle.ip && SIGNUP_NETWORK_POLICY);
  if (network.kind === 'throttled') return network;
  if (blocked(ctx, device, network.counter?.count ?? 0)) return { kind: 'refused' };

  const invited = form.invite !== undefined ? await invitationAddress(ctx, form.invite) : undefined;
  if (form.invite !== undefined && !invited) return { kind: 'invitation-unusable' };
  const email = (invited ?? form.email).trim();
  const typedUsername = ctx.config.signup.username === 'optional' ? (form.username ?? '').trim() : '';
  const username = typedUsername || email;
  const problems = await formProblems(ctx, { ...form, email }, username);
  if (problems.length > 0) return { kind: 'invalid', problems };

  const passwordHash = await ctx.passwords.hash(form.password);
  const claims = { name: form.name.trim() };
  if (invited) {
    // The user and their user.created event commit together, or neither does.
    const accepted = await ctx.db.transaction().execute(async (trx) => {
      const result = await acceptInvitation(trx, {
        tokenDigest: sha256(form.invite!),
        username: typedUsername || null,
        passwordHash,
        claims,
        now: ctx.clock(),
      });
      if (result.kind === 'created') await emitUserEventById(ctx, trx, 'user.created', result.userId, { via: 'invitation' });
      return result;
    });
    if (accepted.kind === 'created') ctx.log.info({ event: 'signup_invited', userId: accepted.userId }, 'invited sign-up');
    return accepted.kind === 'unusable' ? { kind: 'invitation-unusable' } : accepted;
  }
  const signupId = randomUUID();
  const token = randomToken();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const interactionId = form.interactionId && INTERACTION_PATTERN.test(form.interactionId) ? form.interactionId : null;
  await createSignup(ctx.db, {
    id: signupId,
    tokenDigest: sha256(token),
    codeDigest: codeDigest(ctx, signupId, code),
    email,
    username,
    passwordHash,
    claims,
    interactionId,
    now,
    expiresAt: addSeconds(now, ctx.config.signup.verificationTtlSeconds),
    verification: { url: signupVerifyUrl(ctx.config.issuer, token), code, ...(form.locale ? { locale: form.locale } : {}) },
  });
  return { kind: 'pending', signupId };
}

export async function verifySignupLink(ctx: ProviderContext, token: string | undefined): Promise<SignupVerification> {
  if (!token || !TOKEN_PATTERN.test(token)) return { kind: 'unusable' };
  return logged(ctx, await verifyAndEmit(ctx, sha256(token)));
}

/** Makes the user of a sign-up, and its user.created webhook event, in one transaction. */
function verifyAndEmit(ctx: ProviderContext, tokenDigest: string): Promise<SignupVerification> {
  return ctx.db.transaction().execute(async (trx: Db) => {
    const result = await verifySignup(trx, tokenDigest, ctx.clock());
    if (result.kind === 'unreadable') {
      // Written by another version of this code: left unspent, so the link works on an instance that reads it.
      ctx.log.warn({ event: 'signup_unreadable', reason: result.reason }, 'sign-up claims unreadable by this version; left unspent');
      return { kind: 'unusable' };
    }
    if (result.kind === 'created') await emitUserEventById(ctx, trx, 'user.created', result.userId, { via: 'signup' });
    return result;
  });
}

export type CodeVerification = SignupVerification | { kind: 'wrong-code'; left: number };

/** The code typed in the browser that signed up (`signupId` from its cookie). */
export async function verifySignupCode(ctx: ProviderContext, signupId: string | undefined, code: string): Promise<CodeVerification> {
  // The try is counted by the statement that checks the cap (issue 38): 40 at once get five tries, not seven.
  const pending = signupId ? await claimSignupCodeTry(ctx.db, signupId, ctx.clock(), MAX_SIGNUP_CODE_FAILURES) : undefined;
  if (!pending) return { kind: 'unusable' };
  const typed = code.replace(/\s/g, '');
  const expected = Buffer.from(pending.codeDigest);
  const actual = Buffer.from(codeDigest(ctx, pending.id, typed));
  if (!/^\d{6}$/.test(typed) || actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    return { kind: 'wrong-code', left: Math.max(0, MAX_SIGNUP_CODE_FAILURES - pending.codeTries) };
  }
  return logged(ctx, await verifyAndEmit(ctx, pending.tokenDigest));
}

function logged<T extends SignupVerification>(ctx: ProviderContext, result: T): T {
  if (result.kind === 'created') ctx.log.info({ event: 'signup_verified', userId: result.userId }, 'sign-up verified');
  return result;
}

/** An admin's invitation (sso-admin users invite EMAIL): mailed through the outbox. */
export async function inviteByEmail(ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>, email: string): Promise<void> {
  const now = ctx.clock();
  const token = randomToken();
  await createInvitation(ctx.db, {
    tokenDigest: sha256(token),
    email,
    now,
    expiresAt: addSeconds(now, ctx.config.signup.verificationTtlSeconds),
    payload: { url: invitationUrl(ctx.config.issuer, token) },
  });
}

export const isEmailAddress = (value: string) => value.length <= 254 && EMAIL_PATTERN.test(value);
