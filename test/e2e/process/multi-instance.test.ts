// Two instances of the built server (as npm start runs it) on one PostgreSQL database, as behind a load balancer: a
// sign-in on one is redeemed and refreshed on the other, and a key rotated by `sso-admin keys` reaches a running
// instance by itself.
import type { ChildProcess } from 'node:child_process';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oidc from 'openid-client';
import t, { type Test } from 'tap';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { ALICE, testConfig } from '../../helpers/app.js';
import { collect, spawnServer } from '../../helpers/child-process.js';
import { rotateKeys } from '../../helpers/keys.js';
import { createTestDatabase, onServer, type TestDatabase } from '../../helpers/database.js';
import { visitToClient } from '../../helpers/fetch-browser.js';
import { OFFLINE_SCOPE, REFRESHING } from '../../helpers/grants.js';
import { forwardedPort, reportedPort, type ForwardedPort } from '../../helpers/listening.js';
import { prepareAttempt } from '../../helpers/relying-party.js';

const KEYS_ENCRYPTION_SECRET = 'multi-instance-secret-0123456789-ABCDEF';
const ACTIVATION_DELAY_SECONDS = 5;

interface Instance {
  name: 'A' | 'B';
  child: ChildProcess;
  /** Where this instance is reached: `http://127.0.0.1:<the port it reports>`, or the public port forwarded to it. */
  listenUrl: string;
  /** Every pino line it has written so far. */
  logs: Array<Record<string, unknown>>;
}

/** Polls `probe` until it returns a value, or fails after `ms` naming what it waited for. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A hung start, not a slow one: on a loaded two-core machine a start (node, migrations checked, keys loaded) took over 30 s.
 */
const READY_WITHIN_MS = 90_000;

/**
 * Starts the built server on a port the kernel picks with the shared settings; resolves once it logs that it is ready,
 * or kills it (by its pid) and rejects when it exits first or is not ready within READY_WITHIN_MS. With `forwarded`
 * (the port BASE_URL names, held by the test), that port is forwarded to the one the instance reports, and is where
 * the instance is reached.
 */
async function startInstance(name: Instance['name'], env: Record<string, string>, forwarded?: ForwardedPort): Promise<Instance> {
  const child = await spawnServer({ ...env, HOST: '127.0.0.1', PORT: '0' });
  const instance: Instance = { name, child, listenUrl: '', logs: [] };
  let buffered = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`instance ${name} was not ready within ${READY_WITHIN_MS / 1000} s: ${JSON.stringify(instance.logs)} ${stderr}`));
    }, READY_WITHIN_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited with ${code}: ${JSON.stringify(instance.logs)} ${stderr}`));
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          entry = { unparsed: line };
        }
        instance.logs.push(entry);
        const port = typeof entry.msg === 'string' ? reportedPort(entry.msg) : undefined;
        if (port !== undefined) {
          forwarded?.forwardTo(port);
          instance.listenUrl = `http://127.0.0.1:${forwarded?.port ?? port}`;
        }
        if (typeof entry.msg === 'string' && entry.msg.includes(' ready on ')) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
  });
  return instance;
}

/** SIGTERM by pid, then SIGKILL if it has not exited within five seconds. */
async function stopInstance(instance: Instance): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = collect(child, 5_000).catch(() => undefined);
  child.kill('SIGTERM');
  await exited;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Waits for the instance's request log line for this method and path among the lines written after `mark` (a
 * length of its log); the line is written once the response has been sent, so it may come after the client has it.
 */
function served(instance: Instance, mark: number, method: string, path: RegExp): Promise<Record<string, unknown>> {
  return until(`${method} ${path} in instance ${instance.name}'s log`, 5_000, () =>
    instance.logs.slice(mark).find((l) => l.msg === 'request' && l.method === method && typeof l.path === 'string' && path.test(l.path)),
  );
}

/**
 * openid-client's fetch for one instance: every request for the public address (BASE_URL) goes to that instance's
 * port instead, the way a load balancer would send it there. Nothing leaves loopback.
 */
function routedTo(publicUrl: string, instance: Instance): oidc.CustomFetch {
  const publicOrigin = new URL(publicUrl).origin;
  return (url, options) => {
    const target = new URL(url);
    if (target.origin !== publicOrigin) throw new Error(`refusing a request off the public address: ${url}`);
    const listening = new URL(instance.listenUrl);
    target.host = listening.host;
    return fetch(target, options as RequestInit);
  };
}

async function jwksOf(instance: Instance): Promise<JSONWebKeySet> {
  const res = await fetch(`${instance.listenUrl}/sso/jwks`);
  if (res.status !== 200) throw new Error(`JWKS of instance ${instance.name}: HTTP ${res.status}`);
  return (await res.json()) as JSONWebKeySet;
}

const kidsOf = (jwks: JSONWebKeySet) => jwks.keys.map((k) => k.kid).sort();

function kidOf(idToken: string | undefined): string | undefined {
  if (idToken === undefined) throw new Error('no ID token in the token response');
  return decodeProtectedHeader(idToken).kid;
}

t.test(
  'two instances on one PostgreSQL database serve one sign-in between them and share a key rotation',
  { skip: onServer ? false : 'needs TEST_DATABASE_URL: two processes cannot open one embedded PGlite database' },
  async (t: Test) => {
    const instances: Instance[] = [];
    // eslint-disable-next-line prefer-const -- declared before the teardown that drops it, assigned once it exists
    let database: TestDatabase | undefined;
    t.teardown(async () => {
      await Promise.all(instances.map(stopInstance));
      await database?.drop();
    });

    // A fresh, unmigrated database: both instances migrate it and generate the first keys as they start together.
    database = await createTestDatabase({ migrate: false });
    // One issuer for both: BASE_URL is the public address (a port held here, forwarded to A); B is reached on its
    // own port, as a balancer would reach it.
    const publicPort = await forwardedPort(t);
    const publicUrl = `http://127.0.0.1:${publicPort.port}`;
    const issuer = `${publicUrl}/sso`;
    const shared = {
      DATABASE_URL: database.url!,
      KEYS_ENCRYPTION_SECRET,
      BASE_URL: publicUrl,
      KEYS_REFRESH_SECONDS: '1',
      KEY_ACTIVATION_DELAY_SECONDS: String(ACTIVATION_DELAY_SECONDS),
    };
    const started = await Promise.allSettled([startInstance('A', shared, publicPort), startInstance('B', shared)]);
    // Whichever came up is stopped in teardown even if the other did not.
    for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
    const [a, b] = started.map((result) => {
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    }) as [Instance, Instance];
    await applySeed(database.handle.db, new PasswordHasher(testConfig().argon2), { clients: [REFRESHING], users: [ALICE] });

    const configFor = (instance: Instance) =>
      oidc.discovery(new URL(issuer), REFRESHING.client_id, REFRESHING.client_secret, oidc.ClientSecretBasic(REFRESHING.client_secret), {
        execute: [oidc.allowInsecureRequests],
        [oidc.customFetch]: routedTo(publicUrl, instance),
      });
    const [configA, configB] = await Promise.all([configFor(a), configFor(b)]);

    let originalKid: string | undefined;
    await t.test('instances started together on a fresh database publish the same single key per algorithm', async (t) => {
      const [jwksA, jwksB] = await Promise.all([jwksOf(a), jwksOf(b)]);
      t.same(
        jwksA.keys.map((k) => k.alg).sort(),
        ['ES256', 'EdDSA', 'PS256', 'RS256'],
        'one key per algorithm, generated once under the lock',
      );
      t.same(kidsOf(jwksB), kidsOf(jwksA), 'B publishes exactly the keys A publishes');
      originalKid = jwksA.keys.find((k) => k.alg === 'RS256')?.kid;
      t.ok(originalKid);
      t.equal(configB.serverMetadata().issuer, issuer, "B's discovery names the shared issuer");
      t.equal(configB.serverMetadata().token_endpoint, `${issuer}/token`);
    });

    let refreshToken: string | undefined;
    let sub: string | undefined;
    await t.test('a code issued through instance A is redeemed on instance B, and its ID token verifies with A’s JWKS', async (t) => {
      const attempt = await prepareAttempt(configA, REFRESHING.redirect_uris[0]!, OFFLINE_SCOPE);
      const { authorizationUrl: url, nonce } = attempt;
      t.equal(url.origin, new URL(a.listenUrl).origin, 'the browser goes to instance A');
      const markA = a.logs.length;
      const answer = await visitToClient(a.listenUrl, url);
      if (answer.mode !== 'query') throw new Error(`expected a redirect to the client, got ${answer.mode}`);
      t.same(answer.pages, ['login', 'consent'], 'the sign-in and consent pages of A');
      t.match(await served(a, markA, 'POST', /^\/sso\/interaction\/[^/]+\/login$/), { status: 303 }, 'A took the password');
      t.match(await served(a, markA, 'POST', /^\/sso\/interaction\/[^/]+\/consent$/), { status: 303 }, 'A took the consent');

      const markB = b.logs.length;

      const tokens = await oidc.authorizationCodeGrant(configB, answer.callback, attempt.checks);
      t.match(await served(b, markB, 'POST', /^\/sso\/token$/), { status: 200 }, 'B answered the token request');
      t.notOk(
        a.logs.some((l) => l.msg === 'request' && l.path === '/sso/token'),
        'A never saw it',
      );
      t.equal(tokens.scope, OFFLINE_SCOPE);
      t.type(tokens.refresh_token, 'string', 'OIDC Core 11: offline_access brings a refresh token');
      t.equal(kidOf(tokens.id_token), originalKid, 'signed with the current RS256 key');

      // OIDC Core 3.1.3.7: the RP validates the signature with the keys the issuer publishes, whichever instance serves them.
      const { payload } = await jwtVerify(tokens.id_token!, createLocalJWKSet(await jwksOf(a)), {
        issuer,
        audience: REFRESHING.client_id,
      });
      t.equal(payload.nonce, nonce);
      t.equal(payload.sub, tokens.claims()!.sub);
      sub = payload.sub;
      refreshToken = tokens.refresh_token;
    });

    await t.test(
      'the refresh token issued by B is refreshed on A (RFC 6749 6) and the userinfo of B accepts the new access token',
      async (t) => {
        const markA = a.logs.length;
        const refreshed = await oidc.refreshTokenGrant(configA, refreshToken!);
        t.match(await served(a, markA, 'POST', /^\/sso\/token$/), { status: 200 }, 'A answered the refresh');
        t.not(refreshed.refresh_token, refreshToken, 'RFC 9700 4.14.2: rotated');
        t.equal(refreshed.claims()?.sub, sub, 'OIDC Core 12.2: the same sub');
        t.equal(kidOf(refreshed.id_token), originalKid);
        const info = await oidc.fetchUserInfo(configB, refreshed.access_token, sub!);
        t.equal(info.name, ALICE.name, 'the profile claims of the granted scope');

        // RFC 9700 4.14.2: the refresh token B issued is spent, as A's rotation is in the shared database.
        const replay = await oidc.refreshTokenGrant(configB, refreshToken!).then(
          () => undefined,
          (err: unknown) => err,
        );
        t.ok(replay instanceof oidc.ResponseBodyError, `B refuses the rotated refresh token, got ${String(replay)}`);
        t.equal((replay as oidc.ResponseBodyError).error, 'invalid_grant');
      },
    );

    await t.test('a key rotated with `sso-admin keys rotate` is published by B without a restart, then signs B’s ID tokens', async (t) => {
      // A fresh grant (the replay above revoked the first one): sign in on A, redeem on B.
      const attempt = await prepareAttempt(configA, REFRESHING.redirect_uris[0]!, OFFLINE_SCOPE);
      const answer = await visitToClient(a.listenUrl, attempt.authorizationUrl);
      if (answer.mode !== 'query') throw new Error(`expected a redirect to the client, got ${answer.mode}`);
      const granted = await oidc.authorizationCodeGrant(configB, answer.callback, attempt.checks);
      let current = granted.refresh_token!;

      const rotate = await rotateKeys([], shared);
      t.equal(rotate.code, 0, rotate.stderr);
      const line = rotate.stdout.split('\n').find((l) => l.startsWith('RS256 key '));
      const match = /^RS256 key ([A-Za-z0-9_-]{43}) added: published now, signs from \S+ \(in (\d+) s\)$/.exec(line ?? '');
      if (!match) throw new Error(`unexpected output: ${rotate.stdout}`);
      const newKid = match[1]!;
      t.equal(match[2], String(ACTIVATION_DELAY_SECONDS), 'the delay is KEY_ACTIVATION_DELAY_SECONDS');
      t.not(newKid, originalKid);
      const row = await database!.handle.db
        .selectFrom('signing_keys')
        .select('activates_at')
        .where('kid', '=', newKid)
        .executeTakeFirstOrThrow();
      const activatesAt = new Date(row.activates_at).getTime();

      // B reloads every KEYS_REFRESH_SECONDS (1 s): the pending key appears in its JWKS with no restart.
      const jwksB = await until('the new kid in the JWKS of B', 5_000, async () => {
        const jwks = await jwksOf(b);
        return jwks.keys.some((k) => k.kid === newKid) ? jwks : undefined;
      });
      t.ok(
        jwksB.keys.some((k) => k.kid === originalKid),
        'the old key stays published while its tokens live',
      );
      t.equal(b.child.exitCode, null, 'B is the same process');

      // Until the activation time the old key keeps signing, so RPs that cached the JWKS can still verify.
      const pending = await oidc.refreshTokenGrant(configB, current);
      t.ok(Date.now() < activatesAt, 'this refresh was answered while the new key was pending');
      t.equal(kidOf(pending.id_token), originalKid, 'a pending key does not sign');
      current = pending.refresh_token!;

      // B already holds the pending key, so it signs with it from its activation time on, with no further reload.
      await until('the activation time', (ACTIVATION_DELAY_SECONDS + 5) * 1000, () => (Date.now() > activatesAt ? true : undefined));
      const markB = b.logs.length;
      const active = await oidc.refreshTokenGrant(configB, current);
      t.match(await served(b, markB, 'POST', /^\/sso\/token$/), { status: 200 }, 'B answered it');
      t.equal(kidOf(active.id_token), newKid, 'B signs new ID tokens with the new kid');
      const { payload, protectedHeader } = await jwtVerify(active.id_token!, createLocalJWKSet(await jwksOf(b)), {
        issuer,
        audience: REFRESHING.client_id,
      });
      t.equal(protectedHeader.alg, 'RS256');
      t.equal(payload.sub, sub, 'the same user');
      t.ok(
        (await jwksOf(a)).keys.some((k) => k.kid === newKid),
        'A publishes the new key too',
      );
    });
  },
);
