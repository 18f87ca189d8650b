// npm run bench's options of issue 21 (--floor, --instances): their rules, the sizes the floor server copies, and the
// multiple of each scenario over the floor run right after it.
import t from 'tap';
import { floorMedians, floorMultiples } from '../../scripts/bench/floor/floor.js';
import { parseFloorSizes } from '../../scripts/bench/floor/floor-shared.js';
import { parseOptions } from '../../scripts/bench/options.js';
import type { RunRecord } from '../../scripts/bench/report.js';

t.test('--floor is off by default, on when asked, and refused with the embedded database', async (t) => {
  t.equal(parseOptions([])!.floor, false);
  t.equal(parseOptions(['--floor'])!.floor, true);
  t.throws(() => parseOptions(['--floor', '--embedded']), /does not combine with --embedded/);
  t.throws(() => parseOptions(['--floor', '--concurrency=8,512']), /up to concurrency 256/);
});

t.test('the floor server takes only whole sizes', async (t) => {
  t.same(parseFloorSizes('{"tokenBody":1187,"idTokenPayload":442,"userinfoBody":222,"location":146}'), {
    tokenBody: 1187,
    idTokenPayload: 442,
    userinfoBody: 222,
    location: 146,
  });
  t.throws(() => parseFloorSizes(undefined), /tokenBody/);
  t.throws(() => parseFloorSizes('{"tokenBody":1.5,"idTokenPayload":1,"userinfoBody":1,"location":1}'), /tokenBody/);
  t.throws(() => parseFloorSizes('{"tokenBody":1,"idTokenPayload":1,"userinfoBody":1}'), /location/);
});

function record(scenario: string, concurrency: number, server: number, db: number, valid = true): RunRecord {
  return { scenario, concurrency, valid, server: { cpuMsPerOp: server }, db: { cpuMsPerOp: db } } as unknown as RunRecord;
}

t.test('each scenario is divided by its floor at the same concurrency, run after it', async (t) => {
  const multiples = floorMultiples([
    record('token', 8, 0.8, 0.25),
    record('floor-token', 8, 0.6, 0.15),
    record('floor-http', 8, 0.1, 0),
    record('userinfo', 8, 0.12, 0.05),
    record('floor-read', 8, 0.1, 0.04),
    record('userinfo', 32, 0.12, 0.05),
    record('authorize', 8, 0.2, 0.2, true),
    record('floor-write', 8, 0.1, 0.1, false),
  ]);
  t.same(
    multiples.map((m) => [m.scenario, m.concurrency, m.floor, m.multiple, m.serverMultiple, m.met]),
    [
      ['token', 8, 'floor-token', 1.4, 1.33, false],
      ['userinfo', 8, 'floor-read', 1.21, 1.2, true],
    ],
    'no floor at c=32, and none from an invalid floor run',
  );
});

t.test('a floor run before its scenario is not its floor', async (t) => {
  t.same(floorMultiples([record('floor-read', 8, 0.1, 0.04), record('userinfo', 8, 0.12, 0.05)]), []);
});

t.test('--instances takes 1 to 8 separate servers, on PostgreSQL only', async (t) => {
  t.equal(parseOptions([])!.instances, 1);
  t.equal(parseOptions(['--instances=2'])!.instances, 2);
  t.throws(() => parseOptions(['--instances=0']), /--instances must be a whole number from 1 to 8/);
  t.throws(() => parseOptions(['--instances=2', '--embedded']), /needs PostgreSQL/);
});

t.test('--rounds repeats the runs; each round is divided by its own floor, and the median is the figure', async (t) => {
  t.equal(parseOptions([])!.rounds, 1);
  t.equal(parseOptions(['--floor', '--rounds=3'])!.rounds, 3);
  t.throws(() => parseOptions(['--rounds=0']), /--rounds must be a whole number from 1 to 50/);
  t.throws(() => parseOptions(['--soak=60', '--scenarios=full-flow', '--concurrency=32', '--rounds=2']), /does not combine with --rounds/);
  const rounds = [
    [record('token', 8, 0.8, 0.2), record('floor-token', 8, 0.6, 0.2)], // 1.25
    [record('token', 8, 0.9, 0.2), record('floor-token', 8, 0.5, 0.1)], // 1.83
    [record('token', 8, 0.8, 0.2), record('floor-token', 8, 0.5, 0.2)], // 1.43
  ];
  const multiples = floorMultiples(rounds.flat());
  t.same(
    multiples.map((m) => m.multiple),
    [1.25, 1.83, 1.43],
    'each scenario run against the floor run right after it, not a later round’s',
  );
  t.same(floorMedians(multiples), [
    {
      scenario: 'token',
      concurrency: 8,
      floor: 'floor-token',
      rounds: 3,
      multiple: 1.43,
      min: 1.25,
      max: 1.83,
      serverMultiple: 1.6,
      target: 1.3,
      met: false,
    },
  ]);
  const even = floorMedians(floorMultiples(rounds.slice(0, 2).flat()));
  t.equal(even[0]!.multiple, 1.54, 'an even count: the mean of the middle two');
  t.equal(floorMedians(floorMultiples(rounds[0]!))[0]!.met, true, 'met when the median is within the target');
});
