// `sso-admin clients ...` as an operator runs it, on a database of the test's own: the command line's own runAdmin
// and nouns, in this process (test/helpers/admin-cli.ts says why; admin-cli-process.test.ts runs the program itself).
// Several verbs per test, in the order an operator would use them.
import t from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import type { Db } from '../../../src/storage/database.js';
import { adminStore, events, json, runAdmin, signedInUser } from '../../helpers/admin-cli.js';
import { testConfig } from '../../helpers/app.js';

interface ClientJson {
  client_id: string;
  has_secret: boolean;
  revision: number;
  client_secret?: string;
  [field: string]: unknown;
}

const storedClient = (db: Db, clientId: string) =>
  db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
const APP_SECRET = 'the-seeded-secret-of-app-0123456789';
/** Verifies as the server does; the children run without KEYS_ENCRYPTION_SECRET, as this hasher does. */
const hasher = new PasswordHasher(testConfig().argon2);
/** A confidential client written as the seed file writes it. */
const seedApp = (db: Db) =>
  applySeed(db, hasher, {
    clients: [{ client_id: 'app', client_secret: APP_SECRET, client_name: 'App', redirect_uris: ['https://app.example/cb'] }],
    users: [],
  });

t.test(
  'clients create prints a generated secret once and stores its keyed digest; list, show; a taken or unknown id exits 1',
  async (t) => {
    const store = await adminStore(t);
    const created = await runAdmin(
      [
        'clients',
        'create',
        'app',
        '--client-name',
        'Test App',
        '--redirect-uri',
        'https://app.example/cb',
        '--redirect-uri',
        'https://app.example/cb2',
        '--grant-type',
        'authorization_code',
        '--grant-type',
        'refresh_token',
        '--backchannel-logout-uri',
        'https://app.example/logout',
        '--json',
      ],
      store.env,
    );
    const client = json<ClientJson>(created);
    t.match(client, {
      client_id: 'app',
      client_name: 'Test App',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['https://app.example/cb', 'https://app.example/cb2'],
      grant_types: ['authorization_code', 'refresh_token'],
      backchannel_logout_uri: 'https://app.example/logout',
      has_secret: true,
      revision: 1,
    });
    t.match(client.client_secret, /^[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
    t.same(events(created), ['admin.client.created']);
    t.match(
      created.logs.find((l) => l.event === 'admin.client.created'),
      { clientId: 'app', actor: String, msg: 'admin action' },
    );
    t.notMatch(created.stderr, client.client_secret!, 'the secret is in no log line');

    const again = await runAdmin(['clients', 'create', 'app', '--redirect-uri', 'https://other.example/cb'], store.env);
    t.equal(again.code, 1);
    t.equal(again.message, 'sso-admin clients create: client "app" already exists (clients update changes it)');
    t.same(events(again), []);

    const tv = await runAdmin(
      [
        'clients',
        'create',
        'tv',
        '--token-endpoint-auth-method',
        'none',
        '--client-name',
        'Living room TV',
        '--grant-type',
        'urn:ietf:params:oauth:grant-type:device_code',
      ],
      store.env,
    );
    t.same(tv.stdout.split('\n'), ['client "tv" created (revision 1)', ''], 'a public client gets no secret');

    const list = await runAdmin(['clients', 'list'], store.env);
    t.equal(list.code, 0, list.stderr);
    t.same(list.stdout.split('\n'), [
      'client_id  name            auth method          grant types                                   redirect uris  revision',
      'app        Test App        client_secret_basic  authorization_code,refresh_token              2              1',
      'tv         Living room TV  none                 urn:ietf:params:oauth:grant-type:device_code  0              1',
      '',
    ]);
    t.same(events(list), [], 'reading is no action');

    const show = await runAdmin(['clients', 'show', 'app'], store.env);
    t.equal(show.code, 0, show.stderr);
    t.match(
      show.stdout,
      /^client_id +app\nclient_name +Test App\ntoken_endpoint_auth_method +client_secret_basic\nsecret +set \(HMAC-SHA256 digest\)\n/,
    );
    t.match(show.stdout, /\nredirect_uris +https:\/\/app\.example\/cb\n +https:\/\/app\.example\/cb2\n/);
    t.match(show.stdout, /\nrevision +1\ncreated +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/);

    const missing = await runAdmin(['clients', 'show', 'nope', '--json'], store.env);
    t.equal(missing.code, 1);
    t.equal(missing.stdout, '');
    t.equal(missing.message, 'sso-admin clients show: no client "nope"');

    const row = await store.withDb((db) => storedClient(db, 'app'));
    t.match(
      row,
      { redirect_uris: ['https://app.example/cb', 'https://app.example/cb2'], revision: 1 },
      'the second create changed nothing',
    );
    t.match(row!.client_secret_hash, /^hmac-sha256\$/, 'a generated secret needs no argon2 (issue 16, finding 2)');
    t.ok(await hasher.verifyClientSecret(row!.client_secret_hash!, client.client_secret!), 'the digest is of the printed secret');
  },
);

t.test(
  'clients update changes fields and raises the revision, refuses an invalid result, and rotate-secret replaces the secret',
  async (t) => {
    const store = await adminStore(t);
    await store.withDb(seedApp);

    const updated = await runAdmin(
      [
        'clients',
        'update',
        'app',
        '--client-name',
        'Renamed',
        '--redirect-uri',
        'https://app.example/new',
        '--post-logout-redirect-uri',
        'https://app.example/',
        '--json',
      ],
      store.env,
    );
    t.match(json<ClientJson>(updated), {
      client_name: 'Renamed',
      redirect_uris: ['https://app.example/new'],
      post_logout_redirect_uris: ['https://app.example/'],
      revision: 2,
      changed: ['client_name', 'post_logout_redirect_uris', 'redirect_uris'],
    });
    t.equal(json<ClientJson>(updated).client_secret, undefined, 'the secret is kept, and not shown');
    t.match(
      updated.logs.find((l) => l.event === 'admin.client.updated'),
      { clientId: 'app', fields: ['client_name', 'post_logout_redirect_uris', 'redirect_uris'], revision: 2 },
    );

    const invalid = await runAdmin(
      ['clients', 'update', 'app', '--redirect-uri', 'http://app.example/cb', '--remove', 'client_name'],
      store.env,
    );
    t.equal(invalid.code, 1);
    t.equal(
      invalid.message,
      'sso-admin clients update: client "app" was refused: redirect_uris[0] must use https (http is allowed only on localhost, 127.0.0.1 and [::1])',
    );
    t.same(events(invalid), []);

    const refused = await runAdmin(['clients', 'rotate-secret', 'app'], store.env);
    t.equal(refused.code, 2);
    t.match(refused.message, /^sso-admin clients rotate-secret: stdin is not a terminal, so nobody can confirm: pass --yes/);

    const rotated = await runAdmin(['clients', 'rotate-secret', 'app', '--yes', '--json'], store.env);
    const { client_secret: secret, revision } = json<{ client_secret: string; revision: number }>(rotated);
    t.equal(revision, 3);
    t.match(secret, /^[A-Za-z0-9_-]{43}$/);
    t.same(events(rotated), ['admin.client.secret_rotated']);
    t.notMatch(rotated.stderr, secret, 'the secret is in no log line');

    const row = await store.withDb((db) => storedClient(db, 'app'));
    t.match(
      row,
      { client_name: 'Renamed', redirect_uris: ['https://app.example/new'], revision: 3 },
      'the invalid update and the unconfirmed rotation wrote nothing',
    );
    t.match(row!.client_secret_hash, /^hmac-sha256\$/, 'the seeded argon2id hash is replaced by a digest');
    t.ok(await hasher.verifyClientSecret(row!.client_secret_hash!, secret), 'the new secret verifies');
    t.notOk(await hasher.verifyClientSecret(row!.client_secret_hash!, APP_SECRET), 'the old one no longer does');
  },
);

t.test('clients delete refuses without --yes, then deletes the client with its codes and tokens', async (t) => {
  const store = await adminStore(t);
  const alice = await store.withDb(async (db) => {
    await seedApp(db);
    return signedInUser(db, 'alice', 'app', 2);
  });

  const refused = await runAdmin(['clients', 'delete', 'app'], store.env);
  t.equal(refused.code, 2);
  t.match(refused.message, 'pass --yes to do it without asking');

  const deleted = await runAdmin(['clients', 'delete', 'app', '--yes', '--json'], store.env);
  t.same(
    json(deleted),
    { client_id: 'app', deleted: true, access_tokens_revoked: 2, refresh_tokens_revoked: 2, codes_revoked: 2 },
    'all there until then',
  );
  t.match(
    deleted.logs.find((l) => l.event === 'admin.client.deleted'),
    { clientId: 'app', accessTokens: 2, refreshTokens: 2, codes: 2 },
  );

  const again = await runAdmin(['clients', 'delete', 'app', '--yes'], store.env);
  t.equal(again.code, 1);
  t.equal(again.message, 'sso-admin clients delete: no client "app"');

  const left = await store.withDb(async (db) => ({
    client: await storedClient(db, 'app'),
    codes: await db.selectFrom('authorization_codes').select('code_hash').where('client_id', '=', 'app').execute(),
    access: await db.selectFrom('access_tokens').select('token_hash').where('client_id', '=', 'app').execute(),
    refresh: await db.selectFrom('refresh_tokens').select('token_hash').where('client_id', '=', 'app').execute(),
    sessions: await db
      .selectFrom('sessions')
      .select('sid')
      .where('user_id', '=', alice.userId)
      .where('revoked_at', 'is', null)
      .orderBy('sid')
      .execute(),
  }));
  t.same(
    left,
    { client: undefined, codes: [], access: [], refresh: [], sessions: alice.sids.map((sid) => ({ sid })) },
    'the user stays signed in',
  );
});

t.test(
  'clients create takes private_key_jwt with --jwks-uri (no secret) and client_secret_jwt (a secret, sealed); switching seals anew',
  async (t) => {
    const store = await adminStore(t);
    const base = ['--grant-type', 'client_credentials', '--scope', 'reports', '--json'];
    const keyed = await runAdmin(
      [
        'clients',
        'create',
        'keyed',
        '--token-endpoint-auth-method',
        'private_key_jwt',
        '--jwks-uri',
        'https://keyed.example/jwks',
        ...base,
      ],
      store.env,
    );
    t.match(json<ClientJson>(keyed), {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://keyed.example/jwks',
      has_secret: false,
    });
    t.equal(json<ClientJson>(keyed).client_secret, undefined, 'no secret for a client that proves itself with its keys');
    const noKeys = await runAdmin(['clients', 'create', 'bare', '--token-endpoint-auth-method', 'private_key_jwt', ...base], store.env);
    t.equal(noKeys.code, 1);
    t.match(noKeys.message, /needs its public keys: jwks or jwks_uri/);
    const rotate = await runAdmin(['clients', 'rotate-secret', 'keyed', '--yes'], store.env);
    t.equal(rotate.code, 1);
    t.match(rotate.message, /holds no secret \(token_endpoint_auth_method private_key_jwt\)/);

    const hmac = json<ClientJson>(
      await runAdmin(['clients', 'create', 'hmac', '--token-endpoint-auth-method', 'client_secret_jwt', ...base], store.env),
    );
    t.match(hmac, { token_endpoint_auth_method: 'client_secret_jwt', has_secret: true });
    const row = await store.withDb((db) => storedClient(db, 'hmac'));
    t.match(row!.client_secret_sealed, { v: 0, clear: String }, 'sealed in the clear, marked so, without KEYS_ENCRYPTION_SECRET');
    t.equal(Buffer.from(String((row!.client_secret_sealed as { clear: string }).clear), 'base64url').toString(), hmac.client_secret);

    // A client_secret_basic client that moves to client_secret_jwt gets a new secret: a digest cannot be sealed.
    await store.withDb(seedApp);
    const moved = await runAdmin(['clients', 'update', 'app', '--token-endpoint-auth-method', 'client_secret_jwt', '--json'], store.env);
    const movedJson = json<ClientJson>(moved);
    t.match(movedJson.client_secret, /^[A-Za-z0-9_-]{43}$/, 'the new secret is shown once');
    const movedRow = await store.withDb((db) => storedClient(db, 'app'));
    t.ok(movedRow!.client_secret_sealed, 'and sealed');
    const back = json<ClientJson>(
      await runAdmin(['clients', 'update', 'app', '--token-endpoint-auth-method', 'client_secret_basic', '--json'], store.env),
    );
    t.equal(back.client_secret, undefined, 'back to client_secret_basic: the secret is kept');
    t.equal((await store.withDb((db) => storedClient(db, 'app')))!.client_secret_sealed, null, 'and no longer sealed');
  },
);
