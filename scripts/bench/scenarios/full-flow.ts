// A relying party's whole sign-in for a signed-in browser: authorize, code exchange, userinfo.
import { BenchError } from '../errors.js';
import { IdTokenSamples } from '../id-token-samples.js';
import { StepLatencies, steadyRun, type Scenario } from './scenario.js';

export const fullFlow: Scenario = {
  name: 'full-flow',
  unit: 'sign-ins/s',
  async run(ctx, c) {
    const samples = new IdTokenSamples(ctx.options.sampleEvery);
    const steps = new StepLatencies();
    const run = await steadyRun(ctx, c, async (http, _vu, measured) => {
      let t = process.hrtime.bigint();
      const lap = (step: string) => {
        const now = process.hrtime.bigint();
        if (measured) steps.record(step, Number(now - t));
        t = now;
      };
      const issued = await ctx.oidc.authorize(http, ctx.session);
      lap('authorize');
      const tokens = await ctx.oidc.exchange(http, issued);
      lap('token');
      const claims = await ctx.oidc.userinfo(http, tokens.access_token);
      lap('userinfo');
      if (claims.sub !== ctx.sub) throw new BenchError('userinfo_wrong_sub', claims.sub);
      if (measured) samples.offer({ idToken: tokens.id_token!, nonce: issued.nonce, sub: claims.sub });
    });
    return { ...run, steps: steps.summary(), idTokens: await samples.verify(ctx.jwks, ctx.oidc.issuer, ctx.oidc.fixtures.clientId) };
  },
};
