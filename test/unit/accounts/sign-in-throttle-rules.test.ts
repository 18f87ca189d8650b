// The sign-in throttle's pure rules: the growing lock, the keys, and the bounded argon2 semaphore.
import t from 'tap';
import type { ThrottlePolicy } from '../../../src/config.js';
import { accountKey, addressKey, lockRule, lockSecondsAfter } from '../../../src/domain/accounts/sign-in-throttle.js';
import { WorkLimiter } from '../../../src/domain/accounts/work-limiter.js';
import { TemporarilyUnavailable } from '../../../src/errors/oauth-error.js';

const POLICY: ThrottlePolicy = { freeAttempts: 5, lockBaseSeconds: 2, lockMaxSeconds: 900 };

t.test(
  'the first freeAttempts attempts cost no wait, then the lock doubles with each further one up to the cap (RFC 6749 10.10)',
  async (t) => {
    t.same(
      [1, 2, 3, 4].map((n) => lockSecondsAfter(n, POLICY)),
      [0, 0, 0, 0],
    );
    t.same(
      [5, 6, 7, 8, 9].map((n) => lockSecondsAfter(n, POLICY)),
      [2, 4, 8, 16, 32],
    );
    t.equal(lockSecondsAfter(13, POLICY), 512);
    t.equal(lockSecondsAfter(14, POLICY), 900, 'capped at lockMaxSeconds');
    t.equal(lockSecondsAfter(1_000_000, POLICY), 900, 'a huge count neither overflows nor passes the cap');
  },
);

t.test('the lock ladder handed to the database runs from the first lock to the cap and stops there', async (t) => {
  t.same(lockRule(POLICY), { freeAttempts: 5, ladder: [2, 4, 8, 16, 32, 64, 128, 256, 512, 900] });
  t.same(lockRule({ freeAttempts: 1, lockBaseSeconds: 7, lockMaxSeconds: 7 }), { freeAttempts: 1, ladder: [7] });
});

t.test('the account key is the login as typed, trimmed and lower-cased, and never the login itself', async (t) => {
  t.equal(accountKey('  Alice@Example.COM '), accountKey('alice@example.com'));
  t.not(accountKey('alice'), accountKey('alice@example.com'), 'a username and an email are two keys');
  t.match(accountKey('alice'), /^account:[A-Za-z0-9_-]{43}$/);
  t.notMatch(accountKey('alice'), /alice/, 'a digest, so a password typed as the login is not stored');
});

t.test('an address key covers an IPv4 address, or the /64 of an IPv6 address (RFC 4291 2.5.4)', async (t) => {
  t.match(addressKey('192.0.2.1'), /^ip:[A-Za-z0-9_-]{43}$/);
  t.not(addressKey('192.0.2.1'), addressKey('192.0.2.2'));
  t.equal(addressKey('::ffff:192.0.2.1'), addressKey('192.0.2.1'), 'an IPv4-mapped address counts as its IPv4 address');
  t.equal(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'one /64, one counter');
  t.equal(addressKey('2001:0db8:0001:0002::1'), addressKey('2001:db8:1:2::9'), 'leading zeros do not make another key');
  t.not(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'), 'another /64, another counter');
  t.equal(addressKey('2001:db8::1'), addressKey('2001:db8:0:0:1::'), ':: expands to the right number of groups');
  t.equal(addressKey('fe80::1%eth0'), addressKey('fe80::2'), 'a zone id is ignored');
});

t.test(
  'the argon2 semaphore runs at most maxRunning tasks, queues maxQueued, and refuses one more with temporarily_unavailable',
  async (t) => {
    const limiter = new WorkLimiter(2, 1);
    const gates: Array<() => void> = [];
    const started: number[] = [];
    const task = (i: number) => () =>
      new Promise<number>((resolve) => {
        started.push(i);
        gates.push(() => resolve(i));
      });
    const a = limiter.run(task(1));
    const b = limiter.run(task(2));
    const c = limiter.run(task(3));
    await Promise.resolve();
    t.same(started, [1, 2], 'two run at once');
    t.same(limiter.load, { running: 2, queued: 1 });
    const refused = await limiter.run(task(4)).catch((err: unknown) => err);
    t.type(refused, TemporarilyUnavailable);
    t.equal((refused as TemporarilyUnavailable).status, 503);
    t.equal((refused as TemporarilyUnavailable).headers['retry-after'], '1');
    t.same(started, [1, 2], 'the refused task never ran');
    gates.shift()!();
    t.equal(await a, 1);
    await new Promise((resolve) => setImmediate(resolve));
    t.same(started, [1, 2, 3], 'the queued task takes the freed slot');
    gates.shift()!();
    gates.shift()!();
    t.same(await Promise.all([b, c]), [2, 3]);
    t.same(limiter.load, { running: 0, queued: 0 }, 'every slot is given back');
  },
);

t.test('a failing task gives its slot back', async (t) => {
  const limiter = new WorkLimiter(1, 0);
  await t.rejects(
    limiter.run(async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  t.equal(await limiter.run(async () => 'next'), 'next');
  t.same(limiter.load, { running: 0, queued: 0 });
});
