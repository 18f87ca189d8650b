// A password sign-in through the sign-in page, argon2id included: a browser without a session asks to
// authorize, gets the sign-in form, posts it, and is sent back to the client with a code (consent was given
// at the first sign-in). A fresh interaction per operation; the server runs with the per-address throttle
// off and a high per-account allowance (see main.ts), so successful sign-ins are never throttled.
import { CookieJar } from '../cookie-jar.js';
import { signInWithForms } from '../sign-in.js';
import { StepLatencies, steadyRun, type Scenario } from './scenario.js';

export const password: Scenario = {
  name: 'password',
  unit: 'sign-ins/s',
  async run(ctx, c) {
    const steps = new StepLatencies();
    const { username, password: secret } = ctx.oidc.fixtures;
    const run = await steadyRun(ctx, c, (http, _vu, measured) =>
      signInWithForms(ctx.oidc, http, new CookieJar(), ctx.oidc.newAuthRequest(), {
        username,
        password: secret,
        answerConsent: false,
        onStep: measured ? (step, ns) => steps.record(step, ns) : undefined,
      }),
    );
    return { ...run, steps: steps.summary() };
  },
};
