// When a signing key signs and when it is published, from activation times alone.
import t from 'tap';
import { isPublished, keyState, keyTimeline, maySign } from '../../../src/domain/keys/key-lifecycle.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const RETENTION = 3660;

const rows = [
  { kid: 'rs-new', alg: 'RS256', created_at: at(100), activates_at: at(3700) },
  { kid: 'rs-old', alg: 'RS256', created_at: at(0), activates_at: at(0) },
  { kid: 'es-only', alg: 'ES256', created_at: at(0), activates_at: at(0) },
];
const timeline = keyTimeline(rows, RETENTION);
const key = (kid: string) => timeline.find((k) => k.kid === kid)!;

t.test('a key retires when the next key of its algorithm activates, and leaves the JWKS a retention period later', async (t) => {
  t.same(key('rs-old'), {
    kid: 'rs-old',
    alg: 'RS256',
    createdAt: at(0),
    activatesAt: at(0),
    retiresAt: at(3700),
    unpublishesAt: at(3700 + RETENTION),
  });
  t.same(key('rs-new'), { kid: 'rs-new', alg: 'RS256', createdAt: at(100), activatesAt: at(3700), retiresAt: null, unpublishesAt: null });
  t.equal(key('es-only').retiresAt, null, 'another algorithm is not affected');
});

t.test('a rotated key is pending and published until it activates, then active; the old one retired, then expired', async (t) => {
  const states = (s: number) => [keyState(key('rs-old'), at(s)), keyState(key('rs-new'), at(s))];
  t.same(states(100), ['active', 'pending']);
  t.same(states(3699), ['active', 'pending']);
  t.same(states(3700), ['retired', 'active']);
  t.same(states(3700 + RETENTION - 1), ['retired', 'active']);
  t.same(states(3700 + RETENTION), ['expired', 'active']);
  t.equal(isPublished(key('rs-new'), at(100)), true, 'a pending key is published');
  t.equal(isPublished(key('rs-old'), at(3700 + RETENTION - 1)), true, 'a retired key is published');
  t.equal(isPublished(key('rs-old'), at(3700 + RETENTION)), false, 'an expired key is not');
  t.equal(maySign(key('rs-old'), at(3699)), true);
  t.equal(maySign(key('rs-old'), at(3700)), false, 'a retired key never signs again');
});

t.test('keys are ordered by activation, not creation: a later rotation with a shorter delay activates first', async (t) => {
  const mixed = keyTimeline(
    [
      { kid: 'a', alg: 'EdDSA', created_at: at(0), activates_at: at(0) },
      { kid: 'slow', alg: 'EdDSA', created_at: at(10), activates_at: at(5000) },
      { kid: 'fast', alg: 'EdDSA', created_at: at(20), activates_at: at(20) },
    ],
    60,
  );
  const find = (kid: string) => mixed.find((k) => k.kid === kid)!;
  t.same(find('a').retiresAt, at(20));
  t.same(find('fast').retiresAt, at(5000));
  t.equal(find('slow').retiresAt, null);
  t.same(
    ['a', 'fast', 'slow'].map((kid) => keyState(find(kid), at(30))),
    ['retired', 'active', 'pending'],
  );
});
