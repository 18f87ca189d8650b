// `sso-admin keys list|rotate` (npm run admin -- keys ...), the signing keys as an operator handles them, run in
// this process on a database of the test's own (test/helpers/admin-cli.ts); on TEST_DATABASE_URL's server also
// beside a running instance that picks the rotation up.
import { decodeProtectedHeader } from 'jose';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { adminStore, runAdmin } from '../../helpers/admin-cli.js';
import { onServer } from '../../helpers/database.js';
import { obtainCode, tokenRequest } from '../../helpers/flow.js';
import { KEYS_SECRET, WRONG_KEYS_SECRET } from '../../helpers/keys.js';

interface Listed {
  kid: string;
  alg: string;
  state: string;
  created: string;
  activates: string;
  retires: string;
  leaves: string;
  atRest: string;
}

/** `sso-admin keys ...args`, confirmed with --yes when it rotates. */
const keys = (args: string[], env: Record<string, string>) => runAdmin(['keys', ...args, ...(args[0] === 'rotate' ? ['--yes'] : [])], env);

/** A database of the test's own, and the environment that points the command line at it. */
const keyStore = async (t: Test) => (await adminStore(t)).env;

/** `sso-admin keys list`, its table parsed. */
async function list(t: Test, env: Record<string, string>): Promise<Listed[]> {
  const run = await keys(['list'], env);
  t.equal(run.code, 0, run.stderr);
  const [header, ...lines] = run.stdout.trimEnd().split('\n');
  t.match(header, /^kid +alg +state +created +activates +retires +leaves jwks +at rest$/);
  return lines.map((line) => {
    const [kid, alg, state, created, activates, retires, leaves, atRest] = line.split(/ {2,}/) as string[];
    return {
      kid: kid!,
      alg: alg!,
      state: state!,
      created: created!,
      activates: activates!,
      retires: retires!,
      leaves: leaves!,
      atRest: atRest!,
    };
  });
}

const ROTATED =
  /^(RS256|PS256|ES256|EdDSA) key ([A-Za-z0-9_-]{43}) added: published now, signs from (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) \(in (\d+) s\)$/;

t.test('keys rotate adds a key that signs after the delay, and list shows every key with its state', async (t) => {
  const env = await keyStore(t);
  const run = await keys(['rotate', '--alg', 'ES256', '--delay', '600'], env);
  t.equal(run.code, 0, run.stderr);
  const match = ROTATED.exec(run.stdout.trimEnd());
  if (!match) throw new Error(`unexpected output: ${run.stdout}`);
  const [, alg, kid, activates, delay] = match;
  t.equal(alg, 'ES256');
  t.equal(delay, '600');
  t.match(run.stderr, 'warning: KEYS_ENCRYPTION_SECRET is not set: the private keys are stored in the clear');

  const listed = await list(t, env);
  t.same(
    listed.map((k) => k.alg),
    ['RS256', 'PS256', 'ES256', 'ES256', 'EdDSA'],
    'a first key per algorithm, and the rotated one',
  );
  const [current, next] = listed.filter((k) => k.alg === 'ES256');
  t.match(current, { state: 'active', retires: activates, atRest: 'clear' });
  t.match(next, { kid, state: 'pending', activates, retires: '-', leaves: '-', atRest: 'clear' });
  t.equal(Date.parse(next!.activates) - Date.parse(next!.created), 600_000, 'it activates 600 s after its creation');
  // The old key stays published for ID_TOKEN_TTL_SECONDS (3600) + KEYS_REFRESH_SECONDS (60) after it retires.
  t.equal(Date.parse(current!.leaves) - Date.parse(current!.retires), 3_660_000);
  for (const other of listed.filter((k) => k.alg !== 'ES256')) t.match(other, { state: 'active', retires: '-' });
});

t.test('with KEYS_ENCRYPTION_SECRET the CLI encrypts the keys, and a wrong secret is refused by name with nothing added', async (t) => {
  const env = await keyStore(t);
  t.equal((await keys(['rotate', '--alg', 'RS256', '--delay', '0'], { ...env, KEYS_ENCRYPTION_SECRET: KEYS_SECRET })).code, 0);
  const before = await list(t, env);
  t.equal(before.length, 5);
  t.ok(
    before.every((k) => k.atRest === 'encrypted'),
    'every private key is encrypted at rest',
  );
  t.same(
    before.filter((k) => k.alg === 'RS256').map((k) => k.state),
    ['retired', 'active'],
    'with no delay the new key signs at once',
  );

  const wrong = await keys(['rotate'], { ...env, KEYS_ENCRYPTION_SECRET: WRONG_KEYS_SECRET });
  t.equal(wrong.code, 1);
  t.equal(
    wrong.message.trim(),
    'sso-admin keys rotate: KEYS_ENCRYPTION_SECRET does not decrypt the signing keys in the database: it is not the secret they were encrypted with',
  );
  t.notMatch(wrong.stdout + wrong.stderr, WRONG_KEYS_SECRET);
  const missing = await keys(['rotate'], env);
  t.equal(missing.code, 1);
  t.equal(
    missing.message.trim(),
    'sso-admin keys rotate: the signing keys in the database are encrypted: set KEYS_ENCRYPTION_SECRET to the secret they were encrypted with',
  );
  t.same(await list(t, env), before, 'nothing was added');
});

t.test('the CLI refuses an unknown algorithm or verb, and a rotation without --yes, with exit code 2', async (t) => {
  const env = await keyStore(t);
  const alg = await keys(['rotate', '--alg', 'HS256'], env);
  t.equal(alg.code, 2);
  t.equal(
    alg.message.trim(),
    'sso-admin keys rotate: --alg must be one of RS256, PS256, ES256, EdDSA (got "HS256") (sso-admin keys rotate --help)',
  );
  const verb = await keys(['revoke'], env);
  t.equal(verb.code, 2);
  t.match(verb.message, /^sso-admin keys: unknown verb "revoke" \(verbs: list, rotate\)/);
  const unconfirmed = await runAdmin(['keys', 'rotate'], env);
  t.equal(unconfirmed.code, 2);
  t.match(unconfirmed.message, 'pass --yes');
  t.equal((await keys(['list'], env)).stdout.trim(), 'no signing keys yet (the first start makes them)', 'nothing was added');
});

t.test(
  'a running instance signs with a key the CLI rotated in, after its next reload, without a restart',
  { skip: onServer ? false : 'an embedded data folder opens in one process at a time; needs TEST_DATABASE_URL' },
  async (t) => {
    const { app, database } = await buildTestApp(t, { env: { KEYS_REFRESH_SECONDS: '1' } });
    const signedKid = async () => {
      const grant = await obtainCode(app);
      const res = await tokenRequest(app, {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri,
        code_verifier: grant.verifier,
      });
      t.equal(res.statusCode, 200, res.body);
      return decodeProtectedHeader((res.json() as { id_token: string }).id_token).kid;
    };
    const before = await signedKid();
    const run = await keys(['rotate', '--alg', 'RS256', '--delay', '0'], { DATABASE_URL: database.url! });
    t.equal(run.code, 0, run.stderr);
    const kid = ROTATED.exec(run.stdout.trimEnd())?.[2];
    t.ok(kid);
    const deadline = Date.now() + 10_000;
    while (!(await app.inject({ url: '/sso/jwks' })).body.includes(kid!) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const jwks = (await app.inject({ url: '/sso/jwks' })).json() as { keys: Array<{ kid: string; alg: string }> };
    t.same(
      jwks.keys.filter((k) => k.alg === 'RS256').map((k) => k.kid),
      [kid, before],
      'both keys are published',
    );
    t.equal(await signedKid(), kid, `the instance signs for ${CONFIDENTIAL.client_id} with the new key`);
  },
);
