// A ProviderContext beside a test app, on its database and with its device secret, to drive the sign-in domain
// functions (signInWithPassword, completeSignIn) with chosen device signals.
import pino from 'pino';
import type { Test } from 'tap';
import type { Clock } from '../../src/domain/clock.js';
import type { ProviderContext } from '../../src/domain/context.js';
import { createProviderContext } from '../../src/domain/provider-context.js';
import { completeSignIn } from '../../src/domain/accounts/sign-in-completion.js';
import { signInWithPassword, type PasswordSignIn } from '../../src/domain/accounts/password-sign-in.js';
import type { DeviceSignals } from '../../src/domain/risk/signals.js';
import type { TestApp } from './app.js';

/** With the app's `metrics`, what the context counts shows at the app's GET /metrics. */
export async function signInContext(
  t: Test,
  test: Pick<TestApp, 'config' | 'db'> & Partial<Pick<TestApp, 'metrics'>>,
  clock: Clock = () => new Date(),
): Promise<ProviderContext> {
  const { config, db, metrics } = test;
  const log = pino({ level: 'silent' });
  const ctx = await createProviderContext({ config, db, clock, log, clientAuthCacheMs: 0, metrics });
  t.teardown(() => ctx.keys.close());
  return ctx;
}

/**
 * A password sign-in as the sign-in page makes it: a verdict that lets the user in (or a challenge, when
 * `passChallenge` says the second factor was given) is completed, recording the device. Returns the outcome and,
 * when completed, the device cookie the browser keeps.
 */
export async function signInAs(
  ctx: ProviderContext,
  login: string,
  password: string,
  signals: DeviceSignals,
  options: { passChallenge?: boolean } = {},
): Promise<{ outcome: PasswordSignIn; deviceCookie?: string; deviceId?: string }> {
  const outcome = await signInWithPassword(ctx, login, password, signals);
  const completes = outcome.kind === 'signed-in' || (outcome.kind === 'challenge' && options.passChallenge);
  if (!completes) return { outcome };
  const amr = outcome.kind === 'challenge' ? ['pwd', 'otp'] : ['pwd'];
  const done = await completeSignIn(ctx, { ...outcome, amr });
  return { outcome, deviceCookie: done.newDeviceCookie ?? signals.deviceCookie, deviceId: done.deviceId };
}
