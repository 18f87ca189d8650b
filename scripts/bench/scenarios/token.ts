// The code exchange at the token endpoint alone: codes are minted first, untimed, in batches (each used well
// within its lifetime); only the exchanges are timed and metered.
import { closedLoop, newHistogram } from '../closed-loop.js';
import { ErrorTally } from '../errors.js';
import { HttpClient } from '../http-client.js';
import { IdTokenSamples } from '../id-token-samples.js';
import type { IssuedCode } from '../oidc-client.js';
import { beginRun, peakRss, type BenchContext, type Scenario } from './scenario.js';

const MINT_CONCURRENCY = 8;
/** Minting stops after this long even when the batch is not full (an unwell server must not hang the run). */
const MINT_LIMIT_MS = 60_000;

async function mintCodes(ctx: BenchContext, http: HttpClient, count: number, errors: ErrorTally): Promise<IssuedCode[]> {
  const pool: IssuedCode[] = [];
  let started = 0;
  await closedLoop({
    concurrency: Math.min(MINT_CONCURRENCY, count),
    durationMs: MINT_LIMIT_MS,
    hist: newHistogram(),
    errors,
    op: async () => {
      if (started >= count) return false;
      started += 1;
      pool.push(await ctx.oidc.authorize(http, ctx.session));
      return true;
    },
  });
  return pool;
}

/** The code exchange; `jwt`: for the bench resource server, whose access tokens are RFC 9068 JWTs. */
function tokenScenario(name: 'token' | 'token-jwt', jwt: boolean): Scenario {
  return {
    name,
    unit: 'exchanges/s',
    async run(ctx, c) {
      const http = new HttpClient(ctx.origin, c, ctx.ports);
      const minter = new HttpClient(ctx.origin, MINT_CONCURRENCY, ctx.ports);
      const samples = new IdTokenSamples(ctx.options.sampleEvery);
      const otherErrors = new ErrorTally();
      const errors = new ErrorTally();
      const hist = newHistogram();
      const cpu = ctx.meter.emptyWindow();
      const batch = ctx.options.tokenBatch;
      const exchangeFrom = (pool: IssuedCode[], measured: boolean) => {
        let next = 0;
        return async () => {
          const issued = pool[next++];
          if (!issued) return false;
          const tokens = await ctx.oidc.exchange(http, issued, jwt ? ctx.oidc.fixtures.resource : undefined);
          if (jwt && tokens.access_token.split('.').length !== 3) throw new Error('the access token is not a JWT');
          if (measured) samples.offer({ idToken: tokens.id_token!, nonce: issued.nonce });
          return true;
        };
      };
      try {
        const { peakRssSinceStart } = beginRun(ctx);
        if (ctx.options.warmupS > 0) {
          const pool = await mintCodes(ctx, minter, batch, otherErrors);
          await closedLoop({
            concurrency: c,
            durationMs: ctx.options.warmupS * 1000,
            op: exchangeFrom(pool, false),
            hist: newHistogram(),
            errors: otherErrors,
          });
        }
        let ops = 0;
        let elapsedS = 0;
        let aborted = false;
        let batches = 0;
        while (elapsedS < ctx.options.durationS && !aborted) {
          const pool = await mintCodes(ctx, minter, batch, otherErrors);
          if (pool.length === 0) break;
          batches += 1;
          const mark = ctx.meter.begin();
          const loop = await closedLoop({
            concurrency: c,
            durationMs: (ctx.options.durationS - elapsedS) * 1000,
            op: exchangeFrom(pool, true),
            hist,
            errors,
          });
          ctx.meter.end(mark, cpu);
          ops += loop.ops;
          elapsedS += loop.elapsedS;
          aborted = loop.aborted;
        }
        return {
          ops,
          elapsedS,
          aborted,
          hist,
          errors,
          otherErrors,
          cpu,
          peakRssKiB: peakRss(ctx),
          peakRssSinceStart,
          idTokens: await samples.verify(ctx.jwks, ctx.oidc.issuer, ctx.oidc.fixtures.clientId),
          notes: { batches, batchSize: batch },
        };
      } finally {
        http.close();
        minter.close();
      }
    },
  };
}

export const token = tokenScenario('token', false);
export const tokenJwt = tokenScenario('token-jwt', true);
