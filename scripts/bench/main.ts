// npm run bench: the project's own load benchmark (see USAGE in options.ts). Database, seed, server, one
// sign-in, then every scenario at every concurrency; a table on stdout and the figures as JSON.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Cleanup } from './cleanup.js';
import { CpuMeter } from './cpu-meter.js';
import { newFixtures, seedFixtures } from './fixtures.js';
import { OidcClient } from './oidc-client.js';
import { USAGE, UsageError, parseOptions, type BenchOptions, type ScenarioName } from './options.js';
import { signInAndCheck } from './preflight.js';
import { cpuSeconds, memory } from './proc-stats.js';
import { PROJECT_DIR } from './project.js';
import { progressLine, table, toRecord, type RunRecord } from './report.js';
import { SCENARIO_IMPLEMENTATIONS } from './scenarios/index.js';
import type { BenchContext } from './scenarios/scenario.js';
import { buildServer, freePort, startServer } from './server-process.js';
import { populatedDatabase } from './populate-database.js';
import { prepareDatabase } from './target-database.js';
import { FLOORS_OF, floorMedians, floorMedianTable, floorMultiples, floorTable, startFloor, type Floor } from './floor/floor.js';
import { soak, soakSummary, soakTable, type SoakSample } from './soak.js';
import { soakChartSvg } from './soak-chart.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Settings the bench owns. Production mode; the per-address sign-in throttle off (every request comes from
 * 127.0.0.1) and a per-account allowance no closed loop of successful sign-ins can reach, so that the
 * password scenario measures sign-ins rather than refusals. Likewise the risk counters that a closed loop from one
 * device reaches at once: attempts per device and network, and failures per user (an attempt in flight counts as
 * failed until it succeeds). The evaluation still runs in full on every attempt. Since those thresholds are what a
 * count stops at, a raised one lets the counts of the one address and the one login read every attempt in their
 * window (with the defaults they stop at 100 and 3); the windows are cut to their shortest, so that what a count reads
 * is the last seconds' attempts, as steady as the load, not the whole run's, growing with its length. Everything
 * else comes from the environment.
 */
const SERVER_SETTINGS = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  SIGN_IN_IP_FREE_ATTEMPTS: '0',
  SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '1000',
  RISK_DEVICE_VELOCITY: '1000000',
  RISK_NETWORK_VELOCITY: '1000000',
  RISK_USER_FAILURES: '1000000',
  RISK_VELOCITY_WINDOW_SECONDS: '10',
  RISK_STUFFING_WINDOW_SECONDS: '60',
};

/** Server settings taken from the environment, recorded with the results (secrets left out). */
const RECORDED_SETTINGS =
  /^(ARGON2_|RISK_|DATABASE_POOL_MAX$|CLIENT_AUTH_CACHE_SECONDS$|SIGN_IN_|PURGE_INTERVAL_SECONDS$|KEYS_REFRESH_SECONDS$|.*_TTL_SECONDS$|UV_THREADPOOL_SIZE$|NODE_OPTIONS$)/;

function gitDescription(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], {
      cwd: PROJECT_DIR,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

function readOptions(): BenchOptions {
  try {
    const options = parseOptions(process.argv.slice(2));
    if (options) return options;
    process.stdout.write(USAGE);
    process.exit(0);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
}

const options = readOptions();
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const outFile = path.resolve(options.out ?? path.join(PROJECT_DIR, 'bench-results', `bench-${stamp}.json`));
const serverLogFile = `${outFile.replace(/\.json$/, '')}.server.log`;
const cleanup = new Cleanup();

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`\n${signal}: stopping the server and cleaning up`);
    void cleanup.run().finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  await fs.mkdir(path.dirname(outFile), { recursive: true });
  const serverLog = await fs.open(serverLogFile, 'a');
  cleanup.add('close the server log', async () => {
    const { size } = await serverLog.stat();
    await serverLog.close();
    if (size === 0) await fs.rm(serverLogFile, { force: true });
  });

  const database = options.populate
    ? await populatedDatabase(options.populate, process.env, log)
    : await prepareDatabase({ embedded: options.embedded, env: process.env });
  cleanup.add('dispose of the database', () => database.dispose());
  log(`database: ${database.description}`);

  const serverEnv: NodeJS.ProcessEnv = { ...process.env, ...database.env, ...SERVER_SETTINGS };
  const fixtures = newFixtures();
  await seedFixtures(fixtures, serverEnv, serverLog);

  const profileDir = path.join(path.dirname(outFile), `profile-${stamp}`);
  const nodeArgs = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  buildServer();
  const startedAt = process.hrtime.bigint();
  const server = startServer({ port: await freePort(), env: serverEnv, log: serverLog, nodeArgs });
  cleanup.add('stop the server', () => server.stop());
  const discovery = await server.ready(120_000);
  // From the process's start to its first answer, migrations included (issue 21: under a second on a large database).
  const readyMs = Math.round(Number(process.hrtime.bigint() - startedAt) / 1e6);
  log(
    `server: pid ${server.pid}, ${server.baseUrl}/sso, ready ${readyMs} ms after it started (log: ${path.relative(process.cwd(), serverLogFile)})`,
  );
  // More instances of the same issuer (--instances): the same settings and database, ports of their own.
  const servers = [server];
  for (let i = 1; i < options.instances; i += 1) {
    const more = startServer({ port: await freePort(), env: serverEnv, log: serverLog, nodeArgs, issuerBaseUrl: server.baseUrl });
    cleanup.add(`stop instance ${i + 1}`, () => more.stop());
    await more.ready(120_000);
    servers.push(more);
    log(`instance ${i + 1}: pid ${more.pid}, ${more.baseUrl}`);
  }
  const serverPids = servers.map((s) => s.pid);

  const origin = new URL(server.baseUrl);
  const oidc = new OidcClient(origin, discovery, fixtures);
  const signedIn = await signInAndCheck(oidc, origin);
  log(
    `signed in as ${fixtures.username} (sub ${signedIn.sub}); preflight passed; ID tokens signed with ${signedIn.idTokenAlgs.join(', ')}`,
  );

  const ctx: BenchContext = {
    oidc,
    origin,
    session: signedIn.session,
    sub: signedIn.sub,
    jwks: signedIn.jwks,
    meter: new CpuMeter(serverPids, database.kind === 'postgres'),
    serverPid: serverPids,
    ports: servers.map((s) => Number(new URL(s.baseUrl).port)),
    options,
    databaseUrl: database.env.DATABASE_URL,
    keysEncryptionSecret: serverEnv.KEYS_ENCRYPTION_SECRET,
  };
  const meta = {
    tool: 'sso-provider bench 1',
    date: new Date().toISOString(),
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    git: gitDescription(),
    host: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.type()} ${os.release()}`,
      loadAverageAtStart: os.loadavg(),
    },
    database: { kind: database.kind, description: database.description, serverVersion: database.serverVersion ?? null },
    server: {
      pid: server.pid,
      issuer: oidc.issuer,
      settings: SERVER_SETTINGS,
      fromEnvironment: Object.fromEntries(Object.entries(process.env).filter(([k]) => RECORDED_SETTINGS.test(k))),
      idTokenAlgs: signedIn.idTokenAlgs,
      instances: serverPids.length,
      readyMs,
      atStart: { cpuS: cpuSeconds(serverPids), ...memory(serverPids) },
    },
    settings: options,
  };

  let floor: Floor | undefined;
  if (options.floor) {
    floor = await startFloor(ctx, serverEnv, serverLog, nodeArgs);
    cleanup.add('stop the floor server', () => floor!.stop());
    log(`floor server started; the provider's answer sizes it copies: ${JSON.stringify(floor.sizes)}`);
  }

  if (options.soakS > 0) return runSoak(ctx, database.env.DATABASE_URL!, meta);

  const runs = options.scenarios.length * options.concurrencies.length * options.rounds;
  log(`${runs} runs of ${options.warmupS} s warm-up + ${options.durationS} s measured each`);
  const records: RunRecord[] = [];
  const failures: Array<{ scenario: string; concurrency: number; error: string }> = [];
  /** One scenario at one concurrency, then its floors (--floor): each a record, kept and logged as it ends. */
  const keep = (record: RunRecord) => {
    records.push(record);
    log(progressLine(record));
  };
  const measure = async (name: ScenarioName, concurrency: number): Promise<void> => {
    const scenario = SCENARIO_IMPLEMENTATIONS[name];
    keep(toRecord(name, scenario.unit, concurrency, await scenario.run(ctx, concurrency)));
    for (const f of floor && FLOORS_OF[name] ? await floor.runAfter(name, concurrency) : [])
      keep(toRecord(f.name, f.unit, concurrency, f.run));
  };
  for (let round = 1; round <= options.rounds; round += 1) {
    if (options.rounds > 1) log(`round ${round} of ${options.rounds}`);
    for (const name of options.scenarios) {
      for (const concurrency of options.concurrencies) {
        if (interrupted) throw new Error('interrupted');
        if (cpuSeconds(server.pid) === null) throw new Error(`the server (pid ${server.pid}) is gone; see ${serverLogFile}`);
        await measure(name, concurrency).catch((err: unknown) => {
          failures.push({ scenario: name, concurrency, error: (err as Error).message });
          log(`${name.padEnd(18)} c=${String(concurrency).padStart(3)} FAILED: ${(err as Error).message}`);
        });
      }
    }
  }
  if (interrupted) throw new Error('interrupted');
  const signatures = floor ? await floor.signatures() : undefined;
  const multiples = floor ? floorMultiples(records) : undefined;
  const medians = multiples && options.rounds > 1 ? floorMedians(multiples) : undefined;
  const atEnd = { cpuS: cpuSeconds(serverPids), ...memory(serverPids) };
  await fs.writeFile(
    outFile,
    `${JSON.stringify(
      {
        meta: { ...meta, server: { ...meta.server, atEnd } },
        results: records,
        ...(floor ? { floor: { sizes: floor.sizes, signatureCpuMs: signatures, multiples, ...(medians ? { medians } : {}) } } : {}),
        failures,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\n${table(records)}\n\n`);
  if (multiples)
    process.stdout.write(`CPU per operation (node + PostgreSQL) against the stack's floor:\n\n${floorTable(multiples, signatures)}\n\n`);
  if (medians) process.stdout.write(`Over ${options.rounds} rounds:\n\n${floorMedianTable(medians)}\n\n`);
  // Each run resets VmHWM (see resetPeakRss), so the whole run's peak is the largest of the runs' peaks.
  const peaks = records.map((r) => r.server.peakRssMiB).filter((p): p is number => p !== null);
  const peak = peaks.length === 0 ? '?' : Math.max(...peaks).toFixed(1);
  log(`server peak RSS over the whole run ${peak} MiB; database ${database.kind}; results in ${path.relative(process.cwd(), outFile)}`);
  if (options.cpuProf) log(`the server writes its CPU profile to ${path.relative(process.cwd(), profileDir)} as it stops`);
  return failures.length === 0 && records.every((r) => r.valid) ? 0 : 3;
}

/** --soak: the one scenario at the one concurrency for options.soakS seconds, sampled; JSON and an SVG of charts. */
async function runSoak(ctx: BenchContext, databaseUrl: string, meta: Record<string, unknown>): Promise<number> {
  const name = options.scenarios[0]!;
  const concurrency = options.concurrencies[0]!;
  log(`soak: ${name} at concurrency ${concurrency} for ${options.soakS} s, a sample every ${options.sampleS} s`);
  const { run, samples } = await soak(ctx, SCENARIO_IMPLEMENTATIONS[name], concurrency, {
    seconds: options.soakS,
    sampleS: options.sampleS,
    databaseUrl,
  });
  const record = toRecord(name, SCENARIO_IMPLEMENTATIONS[name].unit, concurrency, run);
  const summary = soakSummary(samples);
  await fs.writeFile(outFile, `${JSON.stringify({ meta, results: [record], soak: { summary, samples } }, null, 2)}\n`);
  const svgFile = outFile.replace(/\.json$/, '.svg');
  const title = `${name}, concurrency ${concurrency}, ${options.soakS} s (${String(meta.git ?? '')})`;
  await fs.writeFile(svgFile, soakChartSvg(title, samples as SoakSample[]));
  process.stdout.write(`\n${table([record])}\n\n${soakTable(summary)}\n\n`);
  log(`results in ${path.relative(process.cwd(), outFile)}, charts in ${path.relative(process.cwd(), svgFile)}`);
  return record.valid ? 0 : 3;
}

let exitCode = 1;
let failed = false;
try {
  exitCode = await main();
} catch (err) {
  failed = true;
  log(`bench: ${(err as Error).message}`);
} finally {
  await cleanup.run();
}
if (failed && (await fs.stat(serverLogFile).catch(() => null))) log(`(the seed script's and the server's output: ${serverLogFile})`);
process.exit(exitCode);
