// The UserInfo endpoint with a Bearer access token, one token per virtual user (obtained untimed).
import { BenchError } from '../errors.js';
import { HttpClient } from '../http-client.js';
import { steadyRun, type Scenario } from './scenario.js';

export const userinfo: Scenario = {
  name: 'userinfo',
  unit: 'req/s',
  async run(ctx, c) {
    const setup = new HttpClient(ctx.origin, 1, ctx.ports);
    const tokens: string[] = [];
    try {
      for (let vu = 0; vu < c; vu += 1)
        tokens.push((await ctx.oidc.exchange(setup, await ctx.oidc.authorize(setup, ctx.session))).access_token);
    } finally {
      setup.close();
    }
    return steadyRun(ctx, c, async (http, vu) => {
      const claims = await ctx.oidc.userinfo(http, tokens[vu]!);
      if (claims.sub !== ctx.sub) throw new BenchError('userinfo_wrong_sub', claims.sub);
    });
  },
};
