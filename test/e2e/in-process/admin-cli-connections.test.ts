// `sso-admin connections ...` (issue 19): an upstream connection as an operator adds it (its secret from stdin, kept
// sealed), reads it back with the redirect URI to register upstream, replaces and removes it; a user's links.
import t from 'tap';
import { KEYS_SECRET } from '../../helpers/account.js';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';
import { sealUpstreamTokens } from '../../../src/domain/connections/upstream-tokens.js';

t.test('connections add (a preset, the secret from stdin), show, list, replace, remove; bad entries exit 1', async (t) => {
  const store = await adminStore(t);
  const env = { ...store.env, ...KEYS_SECRET, BASE_URL: 'https://login.example' };
  const added = await runAdmin(
    ['connections', 'add', 'github', '--preset', 'github', '--client-id', 'Iv1.abc', '--client-secret-stdin', '--json'],
    env,
    { input: 'github-client-secret\n' },
  );
  t.match(json(added), {
    id: 'github',
    kind: 'oauth2',
    preset: 'github',
    display_name: 'GitHub',
    authorization_endpoint: 'https://github.com/login/oauth/authorize',
    userinfo_endpoint: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
    has_client_secret: true,
    provisioning: 'create',
    redirect_uri: 'https://login.example/sso/connections/github/callback',
    created: true,
  });
  t.notMatch(added.stdout + added.stderr, 'github-client-secret', 'the secret is printed nowhere, logged nowhere');
  t.same(events(added), ['admin.connection.created']);
  const sealed = await store.withDb((db) => db.selectFrom('connections').select('client_secret_sealed').executeTakeFirstOrThrow());
  t.equal((sealed.client_secret_sealed as { v?: number }).v, 1, 'stored as an encrypted envelope (sealed-secrets.ts)');
  t.notMatch(JSON.stringify(sealed), 'github-client-secret');

  const shown = await runAdmin(['connections', 'show', 'github'], env);
  t.match(shown.stdout, /redirect_uri\s+https:\/\/login\.example\/sso\/connections\/github\/callback/);
  t.match(shown.stdout, /client_secret\s+\(set, sealed\)/);

  const replaced = json(
    await runAdmin(
      [
        'connections',
        'add',
        'github',
        '--preset',
        'github',
        '--client-id',
        'Iv1.def',
        '--provisioning',
        'link',
        '--email-domain',
        'example.org',
        '--json',
      ],
      env,
    ),
  );
  t.match(replaced, {
    created: false,
    client_id: 'Iv1.def',
    has_client_secret: false,
    provisioning: 'link',
    email_domains: ['example.org'],
  });
  t.match(json<unknown[]>(await runAdmin(['connections', 'list', '--json'], env)), [{ id: 'github', links: 0 }]);

  const noEndpoints = await runAdmin(['connections', 'add', 'corp', '--kind', 'oauth2', '--display-name', 'Corp', '--client-id', 'x'], env);
  t.equal(noEndpoints.code, 1);
  t.match(noEndpoints.message, /authorization_endpoint is required for an oauth2 connection/);
  const plainHttp = await runAdmin(
    ['connections', 'add', 'corp', '--kind', 'oidc', '--display-name', 'Corp', '--client-id', 'x', '--issuer', 'http://idp.example'],
    env,
  );
  t.equal(plainHttp.code, 1);
  t.match(plainHttp.message, /issuer must use https/);
  const noOpenid = await runAdmin(
    ['connections', 'add', 'corp', '--preset', 'gitlab', '--client-id', 'x', '--scopes', 'email profile'],
    env,
  );
  t.equal(noOpenid.code, 1);
  t.match(noOpenid.message, /must include openid/);

  const removed = await runAdmin(['connections', 'remove', 'github', '--yes', '--json'], env);
  t.match(json(removed), { id: 'github', removed: true });
  t.same(events(removed), ['admin.connection.removed']);
  t.equal((await runAdmin(['connections', 'show', 'github'], env)).code, 1);
});

t.test("connections links and unlink: an admin sees and removes a user's links", async (t) => {
  const store = await adminStore(t);
  const env = { ...store.env, ...KEYS_SECRET, BASE_URL: 'https://login.example' };
  const added = await runAdmin(['connections', 'add', 'corp', '--preset', 'gitlab', '--client-id', 'x'], env);
  t.equal(added.code, 0, added.stderr);
  await store.withDb(async (db) => {
    const now = new Date();
    const id = '6f1d3c52-54f3-4c2e-9a55-5a1f8d1c2b3a';
    await db
      .insertInto('users')
      .values({
        id,
        username: 'erin',
        password_hash: 'x',
        email: null,
        email_verified: false,
        claims: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('connection_links')
      .values({ connection_id: 'corp', subject: 'gl-42', user_id: id, created_at: now, last_used_at: now })
      .execute();
  });
  t.match(json<unknown[]>(await runAdmin(['connections', 'links', 'erin', '--json'], env)), [
    { connection: 'corp', subject: 'gl-42', tokens_stored_at: null },
  ]);
  const none = await runAdmin(['connections', 'tokens', 'erin', 'corp'], env);
  t.match(none.stdout, 'no tokens are kept', 'a connection that keeps none has none to show');

  // Issue 19 store_tokens: refused without the key that would encrypt them; kept and read back with it.
  const clear = await runAdmin(['connections', 'add', 'corp', '--preset', 'gitlab', '--client-id', 'x', '--store-tokens'], store.env);
  t.equal(clear.code, 1);
  t.match(clear.message, /store_tokens needs KEYS_ENCRYPTION_SECRET/);
  const keeping = await runAdmin(['connections', 'add', 'corp', '--preset', 'gitlab', '--client-id', 'x', '--store-tokens', '--json'], env);
  t.match(json(keeping), { store_tokens: true });
  const upstream = { access_token: 'glpat-upstream-access-0123', token_type: 'Bearer', refresh_token: 'glrt-upstream-refresh-4567' };
  await store.withDb(async (db) => {
    const sealed = await sealUpstreamTokens(
      { db, clock: () => new Date(), config: { keysEncryptionSecret: KEYS_SECRET.KEYS_ENCRYPTION_SECRET } },
      'corp',
      'gl-42',
      upstream,
    );
    await db
      .updateTable('connection_links')
      .set({ tokens_sealed: JSON.stringify(sealed), tokens_stored_at: new Date() })
      .execute();
  });
  const read = await runAdmin(['connections', 'tokens', 'erin', 'corp'], env);
  t.equal(read.code, 0, read.stderr);
  t.match(read.stdout, /access_token\s+glpat-upstream-access-0123/);
  t.match(read.stdout, /refresh_token\s+glrt-upstream-refresh-4567/);
  t.same(events(read), ['admin.connection.tokens_read'], 'the read is on record');
  t.notMatch(read.stderr, 'glpat-', 'and its log line does not carry the token');
  t.match(json<unknown[]>(await runAdmin(['connections', 'tokens', 'erin', 'corp', '--json'], env)), [
    { subject: 'gl-42', tokens: upstream },
  ]);
  const unlinked = await runAdmin(['connections', 'unlink', 'erin', 'corp', '--yes', '--json'], env);
  t.match(json(unlinked), { removed: 1 });
  t.same(events(unlinked), ['admin.connection.unlinked']);
  t.same(json<unknown[]>(await runAdmin(['connections', 'links', 'erin', '--json'], env)), []);
  t.equal((await runAdmin(['connections', 'unlink', 'erin', 'corp', '--yes'], env)).code, 1, 'nothing left to unlink');
});
