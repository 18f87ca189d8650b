// The refresh_token grant, rotated on every use: each virtual user follows its own chain of refresh tokens,
// each obtained from the last (a grant started untimed with offline_access).
import { BenchError } from '../errors.js';
import { HttpClient } from '../http-client.js';
import { IdTokenSamples } from '../id-token-samples.js';
import { OFFLINE_SCOPE } from '../oidc-client.js';
import { steadyRun, type BenchContext, type Scenario } from './scenario.js';

async function startChain(ctx: BenchContext, http: HttpClient): Promise<string> {
  const tokens = await ctx.oidc.exchange(http, await ctx.oidc.authorize(http, ctx.session, OFFLINE_SCOPE));
  if (!tokens.refresh_token) throw new BenchError('token_no_refresh_token', 'offline_access gave no refresh token');
  return tokens.refresh_token;
}

export const refresh: Scenario = {
  name: 'refresh',
  unit: 'refreshes/s',
  async run(ctx, c) {
    const chains: Array<string | undefined> = [];
    const setup = new HttpClient(ctx.origin, 1, ctx.ports);
    try {
      for (let vu = 0; vu < c; vu += 1) chains.push(await startChain(ctx, setup));
    } finally {
      setup.close();
    }
    const samples = new IdTokenSamples(ctx.options.sampleEvery);
    let restarted = 0;
    const run = await steadyRun(ctx, c, async (http, vu, measured) => {
      let current = chains[vu];
      if (current === undefined) {
        // The last refresh of this chain failed (and counted as an error): start a new grant.
        restarted += 1;
        current = await startChain(ctx, http);
      }
      chains[vu] = undefined;
      const tokens = await ctx.oidc.refresh(http, current);
      chains[vu] = tokens.refresh_token;
      // OIDC Core 12.2: same iss, sub and aud as the original ID token; no nonce is expected.
      if (measured) samples.offer({ idToken: tokens.id_token!, nonce: null, sub: ctx.sub });
    });
    return {
      ...run,
      idTokens: await samples.verify(ctx.jwks, ctx.oidc.issuer, ctx.oidc.fixtures.clientId),
      ...(restarted > 0 ? { notes: { chainsRestarted: restarted } } : {}),
    };
  },
};
