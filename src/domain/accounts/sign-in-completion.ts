// The end of every successful sign-in (a password let in, or a password plus a second factor): the device
// recorded, the attempt marked as succeeded, the session made, the events stored; all in one transaction.
import { insertOutboxMessage } from '../../storage/outbox.js';
import { recordDeviceSighting } from '../../storage/risk.js';
import type { UserRow } from '../../storage/schema.js';
import { endSession as endSessionRow, type ActiveSession } from '../../storage/sessions.js';
import type { ProviderContext } from '../context.js';
import type { Locale } from '../../i18n/catalog.js';
import { rememberLocale } from '../../storage/users.js';
import { verdictDetails } from './password-sign-in.js';
import type { DeviceIdentity } from '../risk/device-identity.js';
import type { Verdict } from '../risk/verdict.js';
import { randomToken, sha256 } from '../secrets.js';
import { recordSecurityEvent } from '../risk/security-events.js';
import { emitSessionsEnded } from '../webhooks/emit.js';
import { createSession, sessionKey } from './sessions.js';

export interface CompletedSignIn {
  /** The session cookie's value. */
  cookie: string;
  session: ActiveSession;
  deviceId: string;
  /** A fresh device cookie value when the browser came without one: the caller sets it. */
  newDeviceCookie: string | null;
}

export interface SignInToComplete {
  user: UserRow;
  device: DeviceIdentity;
  verdict: Verdict;
  attemptId: string;
  /** How the user signed in (OIDC Core 2 `amr`). */
  amr: string[];
  /** Its authentication context class (OIDC Core 2 `acr`), when one is known. */
  acr?: string | null;
  clientId?: string | null;
  /**
   * The session cookie the browser presented, if any. A browser holds one session: the one it had ends when the new
   * one begins (queuing its back-channel logouts, as sign-out does), so that its cookie can mint no more codes and
   * its relying parties learn that it ended, whoever signs in now.
   */
  replacesSession?: string | undefined;
  /**
   * The language of the page the user signed in on: remembered as theirs (the mails sent later, with no page to
   * follow, speak it), as Keycloak keeps the `locale` a user chose on its login page.
   */
  locale?: Locale | undefined;
}

export async function completeSignIn(ctx: ProviderContext, s: SignInToComplete): Promise<CompletedSignIn> {
  const newDeviceCookie = s.device.cookieHash ? null : randomToken(16);
  const cookieHash = s.device.cookieHash ?? sha256(newDeviceCookie!);
  const now = ctx.clock();
  return ctx.db.transaction().execute(async (trx) => {
    const device = await recordDeviceSighting(trx, {
      userId: s.user.id,
      cookieHash,
      fingerprint: s.device.fingerprint,
      networkKey: s.device.networkKey,
      label: s.device.label,
      // A device is trusted once a second factor was passed on it (amr "mfa"): the user, not the password, vouched.
      trusted: s.amr.includes('mfa'),
      now,
      attemptId: s.attemptId,
    });
    if (s.locale) await rememberLocale(trx, s.user.id, s.locale);
    const replaced = s.replacesSession ? await endSessionRow(trx, sessionKey(s.replacesSession), now) : undefined;
    if (replaced) await emitSessionsEnded(ctx, trx, replaced.userId, 'replaced', { sids: [replaced.sid] });
    const created = await createSession(ctx, s.user.id, now, { deviceId: device.id, amr: s.amr, acr: s.acr ?? null }, trx);
    const details = verdictDetails(s.verdict);
    await recordSecurityEvent(
      ctx,
      { type: 'sign_in_allowed', userId: s.user.id, deviceId: device.id, clientId: s.clientId, details: { ...details, amr: s.amr } },
      trx,
    );
    if (device.isNew) {
      await recordSecurityEvent(
        ctx,
        { type: 'new_device', userId: s.user.id, deviceId: device.id, clientId: s.clientId, details: { device: s.device.label } },
        trx,
      );
      // The user's first device is their enrolment, not news; any later one is worth telling them about.
      if (s.verdict.reasons.includes('NEW_DEVICE')) {
        await insertOutboxMessage(trx, {
          userId: s.user.id,
          kind: 'new-device',
          payload: { device: s.device.label, at: now.toISOString(), ...(s.locale ? { locale: s.locale } : {}) },
          createdAt: now,
        });
      }
    }
    return { cookie: created.cookie, session: created.session, deviceId: device.id, newDeviceCookie };
  });
}
