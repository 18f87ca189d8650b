// npm run bench -- --floor (issue 21): what the stack itself costs, measured in the same run as the scenarios, and
// each scenario's CPU per operation as a multiple of its floor.
//
// The floor server (floor-server.ts) is started beside the provider, on the same database, with the same node flags
// and settings. Right after a scenario that has a floor runs, its floor runs at the same concurrency through the same
// load generator:
//   authorize with a session  ->  HTTP + one write round trip (GET, answered with a redirect)
//   code exchange             ->  HTTP + one write round trip + one RS256 signature (and HTTP alone, for the table)
//   userinfo                  ->  HTTP + one read round trip
//   password sign-in          ->  HTTP + one argon2id verification at the configured parameters
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { build } from 'esbuild';
import { BenchError } from '../errors.js';
import { HttpClient } from '../http-client.js';
import { CpuMeter } from '../cpu-meter.js';
import { PROJECT_DIR } from '../project.js';
import type { RunRecord } from '../report.js';
import { steadyRun, type BenchContext, type ScenarioRun } from '../scenarios/scenario.js';
import { freePort, startServer, type ServerProcess } from '../server-process.js';
import { floorReadToken, FLOOR_PASSWORD, FLOOR_READ_TOKENS, type FloorSizes } from './floor-shared.js';

export const FLOOR_NAMES = ['floor-http', 'floor-read', 'floor-write', 'floor-token', 'floor-password'] as const;
export type FloorName = (typeof FLOOR_NAMES)[number];

/** The floors run after each scenario that has one; the first is the one its multiple is taken against. */
export const FLOORS_OF: Readonly<Record<string, readonly FloorName[]>> = {
  authorize: ['floor-write'],
  token: ['floor-token', 'floor-http'],
  userinfo: ['floor-read'],
  password: ['floor-password'],
};

/** Issue 21's targets: a scenario's CPU per operation (node and PostgreSQL) at most this multiple of its floor. */
export const FLOOR_TARGETS: Readonly<Record<string, number>> = { authorize: 1.3, token: 1.3, userinfo: 1.3, password: 1.1 };

const UNITS: Record<FloorName, string> = {
  'floor-http': 'req/s',
  'floor-read': 'req/s',
  'floor-write': 'req/s',
  'floor-token': 'req/s',
  'floor-password': 'verif/s',
};

const BUILD_DIR = path.join(PROJECT_DIR, 'dist-bench');

/** The sizes of the provider's answers, read from one real authorization, exchange and userinfo request. */
async function measureSizes(ctx: BenchContext): Promise<FloorSizes> {
  const http = new HttpClient(ctx.origin, 1);
  try {
    const request = ctx.oidc.newAuthRequest();
    const cookie = ctx.session.header(request.path);
    const authorized = await http.request('GET', request.path, cookie ? { cookie } : {});
    const location = authorized.headers.location;
    if (!ctx.oidc.isClientRedirect(location)) throw new BenchError('floor_sizes_authorize', String(authorized.status));
    const tokens = await ctx.oidc.exchange(http, ctx.oidc.codeFrom(location!, request));
    const userinfo = await http.request('GET', ctx.oidc.userinfoPath, {
      authorization: `Bearer ${tokens.access_token}`,
      accept: 'application/json',
    });
    if (userinfo.status !== 200) throw new BenchError('floor_sizes_userinfo', String(userinfo.status));
    return {
      tokenBody: JSON.stringify(tokens).length,
      idTokenPayload: Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').length,
      userinfoBody: userinfo.body.length,
      location: location!.length,
    };
  } finally {
    http.close();
  }
}

export interface Floor {
  readonly sizes: FloorSizes;
  /** The floors of `scenario` at `concurrency`, one run each. */
  runAfter(scenario: string, concurrency: number): Promise<Array<{ name: FloorName; unit: string; run: ScenarioRun }>>;
  /** CPU milliseconds per signature, RS256 and ES256, through the ID token's call in the floor server. */
  signatures(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** `nodeArgs`: the provider's own extra node arguments (--cpu-prof), so that a profile of the floor sits beside its one. */
export async function startFloor(ctx: BenchContext, env: NodeJS.ProcessEnv, log: FileHandle, nodeArgs: string[] = []): Promise<Floor> {
  const sizes = await measureSizes(ctx);
  // Bundled (its imports from src/ included, packages left to node_modules) and run as built JavaScript, as the
  // provider is by npm start.
  await build({
    entryPoints: [path.join(PROJECT_DIR, 'scripts/bench/floor/floor-server.ts')],
    outfile: path.join(BUILD_DIR, 'floor-server.js'),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const server: ServerProcess = startServer({
    port: await freePort(),
    env: { ...env, FLOOR_SIZES: JSON.stringify(sizes) },
    log,
    entry: 'dist-bench/floor-server.js',
    nodeArgs,
  });
  await server.ready(60_000, '/floor/ready');
  const origin = new URL(server.baseUrl);
  const floorCtx: BenchContext = {
    ...ctx,
    origin,
    ports: [Number(origin.port)],
    meter: new CpuMeter(server.pid, true),
    serverPid: server.pid,
  };

  const form = { authorization: 'Basic ' + Buffer.from('floor-client:floor-secret-floor-secret-floor-secret').toString('base64') };
  const exchangeBody = () =>
    `grant_type=authorization_code&code=${randomBytes(32).toString('base64url')}&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/callback')}` +
    `&code_verifier=${randomBytes(32).toString('base64url')}`;
  const postJson = (http: HttpClient, url: string, body: string) =>
    http.request('POST', url, { ...form, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body);
  const expect = (name: string, status: number, got: { status: number; body: string }) => {
    if (got.status !== status) throw new BenchError(`${name}_http_${got.status}`, got.body.slice(0, 200));
  };

  const operations: Record<FloorName, (http: HttpClient, vu: number) => Promise<void>> = {
    'floor-http': async (http) => expect('floor_http', 200, await postJson(http, '/floor/http', exchangeBody())),
    'floor-token': async (http) => expect('floor_token', 200, await postJson(http, '/floor/token', exchangeBody())),
    'floor-read': async (http, vu) =>
      expect(
        'floor_read',
        200,
        await http.request('GET', '/floor/read', { authorization: `Bearer ${floorReadToken(vu)}`, accept: 'application/json' }),
      ),
    'floor-write': async (http) => {
      // The provider's authorization request, query and session cookie alike.
      const request = ctx.oidc.newAuthRequest();
      const cookie = ctx.session.header(request.path);
      const path = `/floor/write${request.path.slice(request.path.indexOf('?'))}`;
      expect('floor_write', 303, await http.request('GET', path, cookie ? { cookie } : {}));
    },
    'floor-password': async (http) =>
      expect(
        'floor_password',
        303,
        await http.request(
          'POST',
          '/floor/password',
          { 'content-type': 'application/x-www-form-urlencoded' },
          `username=${encodeURIComponent(ctx.oidc.fixtures.username)}&password=${encodeURIComponent(FLOOR_PASSWORD)}`,
        ),
      ),
  };

  return {
    sizes,
    async runAfter(scenario, concurrency) {
      if (concurrency > FLOOR_READ_TOKENS) throw new Error(`--floor measures up to concurrency ${FLOOR_READ_TOKENS}`);
      const out = [];
      for (const name of FLOORS_OF[scenario] ?? []) {
        out.push({ name, unit: UNITS[name], run: await steadyRun(floorCtx, concurrency, operations[name]) });
      }
      return out;
    },
    async signatures() {
      const http = new HttpClient(origin, 1);
      try {
        const res = await http.request('POST', '/floor/signatures?n=2000');
        if (res.status !== 200) throw new BenchError('floor_signatures', res.body.slice(0, 200));
        return JSON.parse(res.body) as Record<string, number>;
      } finally {
        http.close();
      }
    },
    stop: () => server.stop(),
  };
}

export interface FloorMultiple {
  scenario: string;
  concurrency: number;
  floor: FloorName;
  /** Node and PostgreSQL CPU per operation, scenario and floor. */
  scenarioMsPerOp: number;
  floorMsPerOp: number;
  multiple: number;
  /** The node process alone. */
  serverMultiple: number;
  target: number;
  met: boolean;
}

const total = (r: RunRecord) => (r.server.cpuMsPerOp ?? NaN) + (r.db?.cpuMsPerOp ?? 0);

/** Each scenario against the floor run right after it at the same concurrency. */
export function floorMultiples(records: readonly RunRecord[]): FloorMultiple[] {
  const out: FloorMultiple[] = [];
  for (const r of records) {
    const floorName = FLOORS_OF[r.scenario]?.[0];
    if (floorName === undefined) continue;
    const floor = records.find(
      (f) => f.scenario === floorName && f.concurrency === r.concurrency && records.indexOf(f) > records.indexOf(r),
    );
    if (!floor || !r.valid || !floor.valid) continue;
    const multiple = Math.round((total(r) / total(floor)) * 100) / 100;
    const target = FLOOR_TARGETS[r.scenario]!;
    out.push({
      scenario: r.scenario,
      concurrency: r.concurrency,
      floor: floorName,
      scenarioMsPerOp: Math.round(total(r) * 1000) / 1000,
      floorMsPerOp: Math.round(total(floor) * 1000) / 1000,
      multiple,
      serverMultiple: Math.round(((r.server.cpuMsPerOp ?? NaN) / (floor.server.cpuMsPerOp ?? NaN)) * 100) / 100,
      target,
      met: multiple <= target,
    });
  }
  return out;
}

/** A scenario's multiples over several rounds (--rounds): their median, range and count. */
export interface FloorMedian {
  scenario: string;
  concurrency: number;
  floor: FloorName;
  rounds: number;
  multiple: number;
  min: number;
  max: number;
  serverMultiple: number;
  target: number;
  met: boolean;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 100) / 100;
}

/** The multiples of each scenario and concurrency, one per round, as one figure: the median (met when it is). */
export function floorMedians(multiples: readonly FloorMultiple[]): FloorMedian[] {
  const groups = new Map<string, FloorMultiple[]>();
  for (const m of multiples) {
    const key = `${m.scenario}@${m.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const values = group.map((m) => m.multiple);
    const multiple = median(values);
    return {
      scenario: first.scenario,
      concurrency: first.concurrency,
      floor: first.floor,
      rounds: group.length,
      multiple,
      min: Math.min(...values),
      max: Math.max(...values),
      serverMultiple: median(group.map((m) => m.serverMultiple)),
      target: first.target,
      met: multiple <= first.target,
    };
  });
}

export function floorMedianTable(medians: readonly FloorMedian[]): string {
  return [
    '| scenario | conc | floor | rounds | median multiple | range | node-only median | target | met |',
    '|---|---:|---|---:|---:|---|---:|---:|---|',
    ...medians.map(
      (m) =>
        `| ${m.scenario} | ${m.concurrency} | ${m.floor} | ${m.rounds} | ${m.multiple.toFixed(2)} | ${m.min.toFixed(2)}–${m.max.toFixed(2)} | ` +
        `${m.serverMultiple.toFixed(2)} | ${m.target.toFixed(1)} | ${m.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
}

export function floorTable(multiples: readonly FloorMultiple[], signatures: Record<string, number> | undefined): string {
  const lines = [
    '| scenario | conc | floor | scenario CPU ms/op | floor CPU ms/op | multiple | node-only multiple | target | met |',
    '|---|---:|---|---:|---:|---:|---:|---:|---|',
    ...multiples.map(
      (m) =>
        `| ${m.scenario} | ${m.concurrency} | ${m.floor} | ${m.scenarioMsPerOp.toFixed(3)} | ${m.floorMsPerOp.toFixed(3)} | ` +
        `${m.multiple.toFixed(2)} | ${m.serverMultiple.toFixed(2)} | ${m.target.toFixed(1)} | ${m.met ? 'yes' : '**no**'} |`,
    ),
  ];
  if (signatures) {
    lines.push(
      '',
      `one signature through jose's CompactSign: ${Object.entries(signatures)
        .map(([alg, ms]) => `${alg} ${ms.toFixed(3)} ms`)
        .join(', ')} of CPU`,
    );
  }
  return lines.join('\n');
}
