// npm run bench -- --populate=large [--scale=…]: the options, the kept database's name and the rows a scale asks for.
import t from 'tap';
import { parseOptions, UsageError } from '../../scripts/bench/options.js';
import { populatedDatabaseName } from '../../scripts/bench/populate-options.js';
import { countsAt, LARGE_COUNTS } from '../../scripts/bench/populate-sql.js';

t.test('--populate=large fills at the full size unless --scale says a share of it', async (t) => {
  t.same(parseOptions(['--populate=large'])?.populate, { scale: 1 });
  t.same(parseOptions(['--populate=large', '--scale=0.01'])?.populate, { scale: 0.01 });
  t.same(parseOptions(['--populate=large', '--scale=.5'])?.populate, { scale: 0.5 });
  t.equal(parseOptions([])?.populate, undefined, 'without it, the bench makes its fresh database as before');
});

t.test('a size other than large, a scale outside (0, 1], --scale alone and --populate with --embedded are refused', async (t) => {
  t.throws(() => parseOptions(['--populate=huge']), new UsageError('--populate knows one size, "large" (got "huge")'));
  for (const scale of ['0', '1.5', '2', 'abc', '1e-3', '-0.1', ''])
    t.throws(() => parseOptions(['--populate=large', `--scale=${scale}`]), UsageError, `--scale=${scale}`);
  t.throws(() => parseOptions(['--scale=0.01']), new UsageError('--scale goes with --populate'));
  t.throws(() => parseOptions(['--populate=large', '--embedded']), /does not go with --embedded/);
});

t.test('each scale has a kept database of its own', async (t) => {
  t.equal(populatedDatabaseName(1), 'sso_bench_large');
  t.equal(populatedDatabaseName(0.01), 'sso_bench_large_0_01');
});

t.test("scale 1 is issue 21's size, and a smaller scale the same share of every table", async (t) => {
  t.same(countsAt(1), LARGE_COUNTS);
  t.match(countsAt(1), {
    users: 1_000_000,
    clients: 10_000,
    access_tokens: 10_000_000,
    refresh_tokens: 5_000_000,
    sign_in_attempts: 20_000_000,
  });
  t.same(countsAt(0.01), {
    users: 10_000,
    clients: 100,
    devices: 20_000,
    sessions: 10_000,
    authorization_codes: 2_000,
    access_tokens: 100_000,
    refresh_tokens: 50_000,
    sign_in_attempts: 200_000,
  });
  t.equal(countsAt(0.0001).clients, 10, 'at least ten clients, so that a client_credentials client exists');
});
