// `npm run eval:risk -- --scale small` (scripts/eval-risk/) as a developer runs it, in a child process: it replays
// the small scenario set and must meet the targets. The latency target depends on the machine (a shared
// CI runner, PGlite): it is asserted when EVAL_LATENCY_TARGET=1, and otherwise only reported.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runTs } from '../../helpers/child-process.js';
import { createTestDatabase, onServer } from '../../helpers/database.js';

interface Results {
  database: string;
  benign: { signIns: number; falseChallengeRate: number; falseBlockRate: number; throttled: number };
  latency: { evaluations: number; p50Ms: number; p99Ms: number; ownP50Ms: number; ownP99Ms: number };
  scenarios: Array<{ scenario: string; benign: boolean; attempts: number; firstDetected: number | null; takeovers: number }>;
  targets: {
    everyAttackDetectedWithin10: boolean;
    falseBlockRateZero: boolean;
    falseChallengeRateUnder5Percent: boolean;
    p99Under2Ms: boolean;
    met: boolean;
  };
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-eval-test-'));
t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
const out = path.join(dir, 'results.json');
const args = ['--scale', 'small', '--out', out];
if (onServer) {
  const database = await createTestDatabase({ migrate: false });
  await database.handle.close();
  t.teardown(() => database.drop());
  args.push('--database-url', database.url!);
}
const run = await runTs('scripts/eval-risk/main.ts', args, {}, 300_000);
const results = JSON.parse(await fs.readFile(out, 'utf8')) as Results;
t.comment(run.stdout);

t.test('the eval replays every scenario and writes its figures as JSON', async (t) => {
  t.equal(results.database, onServer ? 'postgresql' : 'pglite');
  const names = results.scenarios.map((s) => s.scenario);
  t.same(names, [
    'known devices',
    'new laptop',
    'travelling',
    'stuffing, one device',
    'stuffing, rotating networks',
    'brute force',
    'headless browser',
    'automation flag',
    'forged user agent',
    'copied device cookie',
  ]);
  for (const s of results.scenarios) t.ok(s.attempts > 0, `${s.scenario} was replayed`);
  t.ok(results.benign.signIns > 50, 'benign sign-ins to measure rates on');
  t.match(run.stdout, /^benign scenario +sign-ins/m, 'and prints the table');
  t.equal(run.code, results.targets.met ? 0 : 1, 'the exit code says whether every target was met');
});

t.test('every attack is detected within 10 attempts, and none takes an account over', async (t) => {
  for (const s of results.scenarios.filter((s) => !s.benign)) {
    t.ok(s.firstDetected !== null && s.firstDetected <= 10, `${s.scenario}: first detected at attempt ${s.firstDetected}`);
    t.equal(s.takeovers, 0, `${s.scenario}: no valid password let in without a second factor`);
  }
  t.ok(results.targets.everyAttackDetectedWithin10);
});

t.test('benign sign-ins: none blocked or throttled, fewer than 5 % challenged', async (t) => {
  t.equal(results.benign.falseBlockRate, 0);
  t.equal(results.benign.throttled, 0);
  t.ok(results.benign.falseChallengeRate < 0.05, `${(100 * results.benign.falseChallengeRate).toFixed(1)} % challenged`);
});

t.test('the evaluation latency is measured for every evaluated attempt; p99 under 2 ms where asserted', async (t) => {
  t.ok(results.latency.evaluations > 100);
  t.ok(results.latency.p50Ms > 0 && results.latency.p50Ms <= results.latency.p99Ms);
  // What the evaluation adds to a sign-in is at most its own time: the part spent beside the throttle claim is free.
  t.ok(results.latency.p50Ms <= results.latency.ownP50Ms && results.latency.p99Ms <= results.latency.ownP99Ms);
  t.comment(
    `added latency p50 ${results.latency.p50Ms.toFixed(3)} ms, p99 ${results.latency.p99Ms.toFixed(3)} ms (own p99 ${results.latency.ownP99Ms.toFixed(3)} ms) on ${results.database}, load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  if (process.env.EVAL_LATENCY_TARGET === '1') t.ok(results.targets.p99Under2Ms, `p99 ${results.latency.p99Ms.toFixed(3)} ms`);
});
