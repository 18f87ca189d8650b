// The command line of npm run bench, parsed and checked once into a frozen BenchOptions.
import { parseArgs } from 'node:util';
import { POPULATE_USAGE, populateOption, type PopulateOption } from './populate-options.js';

export const SCENARIOS = [
  'discovery',
  'jwks',
  'authorize',
  'token',
  'token-jwt',
  'userinfo',
  'full-flow',
  'password',
  'refresh',
  'client_credentials',
  'webhooks',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Run when --scenarios is not given: all but webhooks, which is a burst of its own (scenarios/webhooks.ts). */
const DEFAULT_SCENARIOS = SCENARIOS.filter((s) => s !== 'webhooks');

export interface BenchOptions {
  readonly scenarios: readonly ScenarioName[];
  readonly concurrencies: readonly number[];
  /** Measured seconds per scenario and concurrency. */
  readonly durationS: number;
  /** Unmeasured seconds of the same load before each measured run. */
  readonly warmupS: number;
  /** The embedded database (PGlite in the server process) instead of PostgreSQL. */
  readonly embedded: boolean;
  /** The first ID token of a run and every n-th after it are verified against the JWKS. */
  readonly sampleEvery: number;
  /** Codes minted (untimed) before each batch of timed exchanges in the token scenario. */
  readonly tokenBatch: number;
  /** Write the server's V8 CPU profile (node --cpu-prof) next to the results. */
  readonly cpuProf: boolean;
  /** Measure the stack's own floor beside the scenarios that have one (scripts/bench/floor/). */
  readonly floor: boolean;
  /** Times the whole list of runs is repeated, each scenario's floor right after it every time; medians reported. */
  readonly rounds: number;
  /** Separate server processes of one issuer on one PostgreSQL database, sent requests in turn. */
  readonly instances: number;
  /** Seconds of one long run of one scenario at one concurrency, sampled as it goes; 0: no soak. */
  readonly soakS: number;
  /** Seconds between the soak's samples. */
  readonly sampleS: number;
  /** The results file; default bench-results/bench-<timestamp>.json. */
  readonly out: string | undefined;
  /** --populate=large: a kept database filled with a deployment's rows (populate-options.ts). */
  readonly populate: PopulateOption | undefined;
  /** The webhooks scenario: events queued per run, each sent to every receiver (the run's concurrency). */
  readonly webhookEvents: number;
}

export const USAGE = `usage: npm run bench -- [--embedded] [--scenarios=${SCENARIOS.join(',')}]
         [--concurrency=1,8,32] [--duration=10] [--warmup=2] [--sample-every=50] [--token-batch=500]
         [--cpu-prof] [--floor [--rounds=1]] [--instances=1] [--soak=SECONDS [--sample=10]] [--out=FILE.json]
         [--populate=large [--scale=1]] [--webhook-events=1000]

Builds dist/ and starts dist/server.js (as npm start does) in production mode on a fresh PostgreSQL
database created through BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) and dropped at the end, on BENCH_DATABASE_URL when set
(kept), or, with --embedded, on PGlite in a temporary folder; seeds a client and a user, signs in once, then runs closed-loop load per scenario and concurrency.
--floor (PostgreSQL only) also runs, right after authorize, token, userinfo and password, what the stack alone costs
for the same request (HTTP, one database round trip, one signature or one argon2id verification; see
docs/benchmarks.md) and reports each scenario's CPU per operation as a multiple of that floor.
--rounds=N repeats the whole list of runs N times (each floor still right after its scenario) and reports, beside
every run, the median of each scenario's multiples and their range: one run's multiple moves by a tenth or more.
--instances=N (PostgreSQL only) starts N separate servers of the same issuer on the same database and sends the
requests to each in turn; CPU and memory are their sums. WORKERS=N in the environment runs node:cluster instead.
--soak=SECONDS (PostgreSQL only) runs the one scenario named at the one concurrency given for that long, and every
--sample seconds records throughput, p50/p99, server RSS and CPU, and the rows and MiB of the tables that grow; the
samples go in the JSON and as charts in an SVG beside it.
--scenarios=webhooks (PostgreSQL only; not run unless named) queues --webhook-events events, each in a transaction of
its own, for as many receivers on 127.0.0.1 as the concurrency (--concurrency=1,20), and times them from the first
commit to the last receiver's 2xx; an event lost or sent out of order makes the run invalid.
Everything goes to 127.0.0.1. Other settings of the server (ARGON2_*, DATABASE_POOL_MAX, ...) are taken
from the environment.
${POPULATE_USAGE}
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

function wholeNumber(flag: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max)
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max} (got "${raw}")`);
  return value;
}

function isScenario(name: string): name is ScenarioName {
  return (SCENARIOS as readonly string[]).includes(name);
}

/** Returns undefined for --help. */
export function parseOptions(argv: string[]): BenchOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        scenarios: { type: 'string', default: DEFAULT_SCENARIOS.join(',') },
        concurrency: { type: 'string', default: '1,8,32' },
        duration: { type: 'string', default: '10' },
        warmup: { type: 'string', default: '2' },
        embedded: { type: 'boolean', default: false },
        'sample-every': { type: 'string', default: '50' },
        'token-batch': { type: 'string', default: '500' },
        'cpu-prof': { type: 'boolean', default: false },
        floor: { type: 'boolean', default: false },
        rounds: { type: 'string', default: '1' },
        instances: { type: 'string', default: '1' },
        soak: { type: 'string', default: '0' },
        sample: { type: 'string', default: '10' },
        out: { type: 'string' },
        populate: { type: 'string' },
        scale: { type: 'string' },
        'webhook-events': { type: 'string', default: '1000' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return undefined;

  const scenarios = values.scenarios
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of scenarios) if (!isScenario(s)) throw new UsageError(`unknown scenario "${s}" (known: ${SCENARIOS.join(', ')})`);
  if (scenarios.length === 0) throw new UsageError('--scenarios names no scenario');
  let populate;
  try {
    populate = populateOption({ populate: values.populate, scale: values.scale, embedded: values.embedded });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const concurrencies = values.concurrency.split(',').map((c) => wholeNumber('concurrency', c.trim(), 1, 1024));
  if (values.floor && values.embedded)
    throw new UsageError('--floor measures round trips to PostgreSQL: it does not combine with --embedded');
  if (values.floor && concurrencies.some((c) => c > 256)) throw new UsageError('--floor measures up to concurrency 256');
  const rounds = wholeNumber('rounds', values.rounds, 1, 50);
  const instances = wholeNumber('instances', values.instances, 1, 8);
  if (instances > 1 && values.embedded)
    throw new UsageError('--instances above 1 needs PostgreSQL: the embedded database opens in one process');
  const soakS = values.soak === '0' ? 0 : wholeNumber('soak', values.soak, 30, 86_400);
  const sampleS = wholeNumber('sample', values.sample, 1, 600);
  if (soakS > 0 && (scenarios.length !== 1 || concurrencies.length !== 1))
    throw new UsageError('--soak runs one scenario at one concurrency: name one of each (--scenarios=full-flow --concurrency=32)');
  if (soakS > 0 && rounds > 1) throw new UsageError('--soak is one long run: it does not combine with --rounds');
  if (scenarios.includes('webhooks') && values.embedded)
    throw new UsageError('the webhooks scenario writes its events into PostgreSQL: it does not combine with --embedded');
  if (soakS > 0 && values.embedded) throw new UsageError('--soak samples table sizes on PostgreSQL: it does not combine with --embedded');

  return Object.freeze({
    scenarios: Object.freeze([...new Set(scenarios as ScenarioName[])]),
    concurrencies: Object.freeze([...new Set(concurrencies)]),
    durationS: wholeNumber('duration', values.duration, 1, 600),
    warmupS: wholeNumber('warmup', values.warmup, 0, 600),
    embedded: values.embedded,
    sampleEvery: wholeNumber('sample-every', values['sample-every'], 1, 1_000_000),
    tokenBatch: wholeNumber('token-batch', values['token-batch'], 10, 100_000),
    cpuProf: values['cpu-prof'],
    floor: values.floor,
    rounds,
    instances,
    soakS,
    sampleS,
    out: values.out,
    populate,
    webhookEvents: wholeNumber('webhook-events', values['webhook-events'], 1, 100_000),
  });
}
