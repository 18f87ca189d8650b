// Key rotation across instances: a rotated key is published before it signs, every instance picks it up from the
// database without a restart, and a retired key stays in the JWKS until every token it signed has expired.
import type { FastifyInstance } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import type { Clock } from '../../src/domain/clock.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { describeSigningKeys, rotateSigningKeys } from '../../src/domain/keys/key-rotation.js';
import { keyRetentionSeconds } from '../../src/domain/keys/keys.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { openDatabase, type Db } from '../../src/storage/database.js';
import { CONFIDENTIAL, FIXTURES, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { obtainCode, tokenRequest } from '../helpers/flow.js';

/** Reload every second, so that a test sees a rotation within a few. */
const ENV = { KEYS_REFRESH_SECONDS: '1', ID_TOKEN_TTL_SECONDS: '600' };
const config = testConfig(ENV);
const RETENTION = keyRetentionSeconds(config);

interface Instance {
  app: FastifyInstance;
  db: Db;
}

/**
 * Two instances of the provider on one database, sharing a clock that moves only when told. On PostgreSQL each has a connection
 * pool of its own, as separate processes would; PGlite in memory is one database per handle, so they share it.
 */
async function twoInstances(t: Test): Promise<{ a: Instance; b: Instance; advance(seconds: number): void; now: Clock }> {
  const database = await createTestDatabase();
  // A clock that stands still unless advanced, so that activation and retirement instants are exact.
  const start = Date.now();
  let offsetMs = 0;
  const now: Clock = () => new Date(start + offsetMs);
  await applySeed(database.handle.db, new PasswordHasher(config.argon2), FIXTURES);
  const second = database.url ? await openDatabase({ url: database.url, dataDir: 'memory://' }) : database.handle;
  const logger = pino({ level: 'silent' });
  const a = await buildApp(config, { db: database.handle.db, logger, clock: now });
  const b = await buildApp(config, { db: second.db, logger, clock: now });
  t.teardown(async () => {
    await a.close();
    await b.close();
    if (second !== database.handle) await second.close();
    await database.drop();
  });
  return { a: { app: a, db: database.handle.db }, b: { app: b, db: second.db }, advance: (s) => (offsetMs += s * 1000), now };
}

async function jwks(app: FastifyInstance): Promise<JSONWebKeySet> {
  const res = await app.inject({ method: 'GET', url: '/sso/jwks' });
  if (res.statusCode !== 200) throw new Error(`JWKS answered ${res.statusCode}`);
  return res.json() as JSONWebKeySet;
}

const kidsOf = async (app: FastifyInstance, alg = 'RS256') => (await jwks(app)).keys.filter((k) => k.alg === alg).map((k) => k.kid);

/** Signs ALICE in at `app` and redeems the code there: the ID token it answers. */
async function idToken(app: FastifyInstance): Promise<string> {
  const grant = await obtainCode(app);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  if (res.statusCode !== 200) throw new Error(`token endpoint answered ${res.statusCode}: ${res.body}`);
  return (res.json() as { id_token: string }).id_token;
}

/** Waits until the app's JWKS (reloaded by its timer) satisfies `ready`. */
async function untilJwks(app: FastifyInstance, ready: (kids: string[]) => boolean, timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const kids = (await jwks(app)).keys.map((k) => k.kid!);
    if (ready(kids)) return kids;
    if (Date.now() > deadline) throw new Error(`the JWKS did not change in ${timeoutMs} ms: ${kids.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

t.test('two instances on one database pick up a rotation without a restart, and old tokens still verify (OIDC Core 10.1.1)', async (t) => {
  const { a, b, now, advance } = await twoInstances(t);
  const [oldKid] = await kidsOf(b.app);
  const oldToken = await idToken(b.app);
  t.equal(decodeProtectedHeader(oldToken).kid, oldKid, 'before the rotation the second instance signs with the first key');
  advance(1);

  // The rotation the CLI runs, from the first instance's side, with no activation delay.
  const [rotated] = await rotateSigningKeys(a.db, { secret: undefined, algs: ['RS256'], activationDelaySeconds: 0, now: now() });
  t.not(rotated!.kid, oldKid);
  t.same(await kidsOf(b.app), [oldKid], 'until it reloads, the second instance does not know the new key');

  await untilJwks(b.app, (kids) => kids.includes(rotated!.kid));
  t.same(await kidsOf(b.app), [rotated!.kid, oldKid], 'after its periodic reload the second instance publishes both keys');
  await untilJwks(a.app, (kids) => kids.includes(rotated!.kid));
  t.same(await kidsOf(a.app), [rotated!.kid, oldKid], 'and so does the first');

  const newToken = await idToken(b.app);
  t.same(decodeProtectedHeader(newToken), { alg: 'RS256', kid: rotated!.kid, typ: 'JWT' }, 'the second instance signs with the new key');
  for (const instance of [a, b]) {
    const keys = createLocalJWKSet(await jwks(instance.app));
    for (const token of [oldToken, newToken]) {
      const { protectedHeader } = await jwtVerify(token, keys, { issuer: config.issuer, audience: CONFIDENTIAL.client_id });
      t.ok(protectedHeader.kid, `a token signed with ${protectedHeader.kid} verifies against the JWKS`);
    }
  }
});

t.test('a rotated key is published at once but signs only after KEY_ACTIVATION_DELAY_SECONDS', async (t) => {
  const { a, b, advance, now } = await twoInstances(t);
  const [oldKid] = await kidsOf(a.app, 'ES256');
  const [rotated] = await rotateSigningKeys(a.db, { secret: undefined, algs: ['ES256'], activationDelaySeconds: 600, now: now() });
  await untilJwks(b.app, (kids) => kids.includes(rotated!.kid));
  t.same(await kidsOf(b.app, 'ES256'), [rotated!.kid, oldKid], 'published before it signs');
  t.same(await kidsOf(b.app, 'RS256'), await kidsOf(a.app, 'RS256'), 'the other algorithms are untouched');

  const before = await idToken(b.app);
  t.equal(decodeProtectedHeader(before).alg, 'RS256');
  const states = async () =>
    Object.fromEntries((await describeSigningKeys(a.db, RETENTION, now())).filter((k) => k.alg === 'ES256').map((k) => [k.kid, k.state]));
  t.same(await states(), { [oldKid!]: 'active', [rotated!.kid]: 'pending' });

  advance(599);
  t.same(await states(), { [oldKid!]: 'active', [rotated!.kid]: 'pending' }, 'one second before its activation it is still pending');
  advance(1);
  t.same(await states(), { [oldKid!]: 'retired', [rotated!.kid]: 'active' }, 'at its activation time it is the signer');
  t.same(await kidsOf(b.app, 'ES256'), [rotated!.kid, oldKid], 'the retired key stays published');
});

t.test('a retired key leaves the JWKS once every ID token it signed has expired, with no reload needed', async (t) => {
  const { a, b, advance, now } = await twoInstances(t);
  const [oldKid] = await kidsOf(a.app);
  const oldToken = await idToken(a.app);
  const [rotated] = await rotateSigningKeys(a.db, { secret: undefined, algs: ['RS256'], activationDelaySeconds: 30, now: now() });
  await untilJwks(a.app, (kids) => kids.includes(rotated!.kid));
  await untilJwks(b.app, (kids) => kids.includes(rotated!.kid));

  advance(30);
  t.equal(decodeProtectedHeader(await idToken(a.app)).kid, rotated!.kid, 'the new key signs from its activation, on the clock alone');
  t.equal(decodeProtectedHeader(await idToken(b.app)).kid, rotated!.kid, 'on every instance');

  // ID_TOKEN_TTL_SECONDS + KEYS_REFRESH_SECONDS after the retirement, the last token the old key could sign has expired.
  t.equal(RETENTION, 601);
  advance(RETENTION - 1);
  t.same(await kidsOf(b.app), [rotated!.kid, oldKid], 'one second before, the old key is still published');
  await t.rejects(
    jwtVerify(oldToken, createLocalJWKSet(await jwks(b.app)), { issuer: config.issuer, currentDate: now() }),
    { code: 'ERR_JWT_EXPIRED' },
    'by then the old token has expired (and its key is still found)',
  );
  advance(1);
  t.same(await kidsOf(b.app), [rotated!.kid], 'then it leaves the JWKS');
  t.same(await kidsOf(a.app), [rotated!.kid]);
  const old = (await describeSigningKeys(a.db, RETENTION, now())).find((k) => k.kid === oldKid);
  t.equal(old?.state, 'expired', 'sso-admin keys list shows it expired');
});
