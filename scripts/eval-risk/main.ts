// npm run eval:risk: replays synthetic benign and attack traffic through the real sign-in functions and prints
// how the risk evaluation did (detection, false challenges and blocks, latency) against the targets of issue 5.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { formatSummary, summarise, TARGETS } from './report.js';
import { replay } from './run.js';
import { SCALES, SCENARIOS } from './scenarios.js';

const USAGE = `usage: npm run eval:risk -- [--scale full|small] [--seed N] [--database-url postgres://...] [--out FILE.json]

Replays a week of synthetic sign-ins (benign people on known devices, a new laptop, a trip) and attacks
(credential stuffing from one device then rotating networks, brute force from many networks, automation, a
copied device cookie) through the provider's own sign-in functions, in virtual time, on an embedded PGlite
database in a temporary folder, or on the (empty) PostgreSQL database --database-url names. Prints the
verdicts per scenario, the benign false-challenge and false-block rates, the evaluation's p50/p99 latency and
whether each target is met (exit code 1 if not); writes everything as JSON to eval-results/.

The RISK_* and SIGN_IN_* settings of the environment (and of ./.env) apply, so a tuning can be evaluated
before it is deployed. argon2 runs at the cheapest parameters the configuration accepts: it is not measured.
`;

function usage(problem: string): never {
  process.stderr.write(`${problem}\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    options: {
      scale: { type: 'string', default: 'full' },
      seed: { type: 'string', default: '1' },
      'database-url': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (err) {
  usage((err as Error).message);
}
const { values } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.scale !== 'full' && values.scale !== 'small') usage('--scale must be full or small');
if (!/^\d{1,9}$/.test(values.seed)) usage('--seed must be a whole number');
const databaseUrl = values['database-url'];
if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) usage('--database-url must be a postgres:// URL');

/** The eval's settings: the environment's risk and throttle policy, the cheapest argon2, nothing else. */
function evalConfig(): Config {
  if (fs.existsSync('.env')) process.loadEnvFile('.env');
  const policy = Object.fromEntries(Object.entries(process.env).filter(([name]) => /^(RISK_|SIGN_IN_)/.test(name)));
  try {
    return loadConfig({ ...policy, LOG_LEVEL: 'silent', ARGON2_MEMORY_KIB: '7168', ARGON2_TIME_COST: '5', ARGON2_MAX_QUEUED: '10000' });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

function gitDescription(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const config = evalConfig();
const scale = SCALES[values.scale];
const seed = Number(values.seed);
const dataDir = databaseUrl ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'sso-eval-risk-'));
let database: DatabaseHandle | undefined;
try {
  database = await openDatabase({ url: databaseUrl, dataDir: dataDir ?? 'unused', poolMax: 4 });
  await migrateToLatest(database.db);
  const existing = await database.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) {
    process.stderr.write('the database already has users: point --database-url at an empty database (the eval adds its own people)\n');
    process.exitCode = 1;
  } else {
    process.stderr.write(
      `replaying the ${values.scale} scenario set (seed ${seed}) on ${databaseUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`} ...\n`,
    );
    const started = Date.now();
    const records = await replay(database.db, config, { scale, seed, progress: (n) => process.stderr.write(`  ${n} attempts\n`) });
    const summary = summarise(records, { concurrent: database.kind === 'postgres' });
    process.stdout.write(`${formatSummary(summary)}\n`);

    const out = values.out ?? path.join('eval-results', `eval-risk-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(
      out,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          git: gitDescription(),
          database: databaseUrl ? 'postgresql' : 'pglite',
          node: process.version,
          cpus: os.cpus().length,
          loadAverageAtEnd: os.loadavg(),
          wallSeconds: (Date.now() - started) / 1000,
          options: { scale: values.scale, seed, ...scale },
          policy: config.risk,
          throttle: config.signInThrottle,
          targetValues: TARGETS,
          scenarioDescriptions: SCENARIOS,
          ...summary,
        },
        null,
        2,
      )}\n`,
    );
    process.stderr.write(`${records.length} attempts in ${((Date.now() - started) / 1000).toFixed(1)} s; results in ${out}\n`);
    if (!summary.targets.met) process.exitCode = 1;
  }
} finally {
  await database?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}
