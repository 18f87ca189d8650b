// `sso-admin scim-tokens ...` as an operator runs it, on a database of the test's own, in this process (see
// admin-cli-clients.test.ts): create with the token printed once and only its digest stored, with or without an
// expiry; list, show, revoke with the audit records; refusals as usage or admin errors; never a token in stderr.
import t from 'tap';
import { sha256 } from '../../../src/domain/secrets.js';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';

t.test('scim-tokens create prints the token once; list, show and revoke; the audit trail never holds it', async (t) => {
  const store = await adminStore(t);
  const empty = await runAdmin(['scim-tokens', 'list'], store.env);
  t.equal(empty.code, 0, empty.stderr);
  t.equal(empty.stdout, 'no SCIM tokens\n');

  const created = await runAdmin(['scim-tokens', 'create', 'entra'], store.env);
  t.equal(created.code, 0, created.stderr);
  const [, token] = /\ntoken: (\S+)\n/.exec(created.stdout) ?? [];
  t.match(created.stdout, /^SCIM token "entra" created; it expires never\n/);
  t.match(token, /^scim_[\w-]{43}$/, 'the scim_ prefix, then 256 random bits');
  t.match(created.stdout, 'This is the only time the token "entra" is shown');
  t.same(events(created), ['admin.scim_token.created']);

  const before = Date.now();
  const okta = json(await runAdmin(['scim-tokens', 'create', 'okta', '--expires-in', '30', '--json'], store.env));
  t.match(okta, { name: 'okta', last_used_at: null, expired: false, token: /^scim_/ });
  t.ok(Date.parse(okta.expires_at as string) >= before + 30 * 86_400_000 - 1000, 'thirty days from now');

  const taken = await runAdmin(['scim-tokens', 'create', 'entra'], store.env);
  t.equal(taken.code, 1);
  t.match(taken.message, 'SCIM token "entra" exists already');
  for (const bad of [
    ['create', 'Bad Name'],
    ['create', 'x', '--expires-in', '0'],
    ['create', 'x', '--expires-in', 'ten'],
    ['create', 'x', '--expires-in', '3651'],
  ]) {
    const run = await runAdmin(['scim-tokens', ...bad], store.env);
    t.equal(run.code, 1, bad.join(' '));
    t.match(run.message, /was refused/);
  }

  const rows = await store.withDb((db) => db.selectFrom('scim_tokens').select(['name', 'token_hash']).orderBy('name').execute());
  t.same(
    rows.map((r) => r.name),
    ['entra', 'okta'],
    'nothing refused was stored',
  );
  t.equal(rows[0]!.token_hash, sha256(token!), 'only the digest is stored');

  const table = await runAdmin(['scim-tokens', 'list'], store.env);
  const cells = table.stdout
    .trimEnd()
    .split('\n')
    .map((r) => r.split(/ {2,}/));
  t.same(cells[0], ['name', 'state', 'created', 'expires', 'last used']);
  t.same(
    cells.slice(1).map((c) => [c[0], c[1], c[4]]),
    [
      ['entra', 'active', 'never'],
      ['okta', 'active', 'never'],
    ],
  );
  t.equal(cells[1]![3], 'never', 'entra does not expire');
  const shown = await runAdmin(['scim-tokens', 'show', 'okta'], store.env);
  t.match(shown.stdout, /expires +\d{4}-/);
  t.notOk(shown.stdout.includes('scim_') || table.stdout.includes('scim_'), 'no token is shown again');

  const unconfirmed = await runAdmin(['scim-tokens', 'revoke', 'entra'], store.env);
  t.not(unconfirmed.code, 0, 'a revoke without a terminal needs --yes');
  const revoked = await runAdmin(['scim-tokens', 'revoke', 'entra', '--yes'], store.env);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(revoked.stdout, 'SCIM token "entra" revoked\n');
  t.same(events(revoked), ['admin.scim_token.revoked']);
  const gone = await runAdmin(['scim-tokens', 'show', 'entra'], store.env);
  t.equal(gone.code, 1);
  t.match(gone.message, 'no SCIM token "entra" (scim-tokens list shows them)');
  t.equal((await runAdmin(['scim-tokens', 'revoke', 'entra', '--yes'], store.env)).code, 1, 'a second revoke finds nothing');

  const audit = await store.withDb((db) =>
    db.selectFrom('admin_audit_records').selectAll().where('target_type', '=', 'scim_token').orderBy('id').execute(),
  );
  t.match(
    audit.map((r) => [r.event, r.target_id, r.actor_kind, r.changes]),
    [
      ['admin.scim_token.created', 'entra', 'cli', { expires_at: null, token: '(not recorded)' }],
      ['admin.scim_token.created', 'okta', 'cli', { expires_at: okta.expires_at as string }],
      ['admin.scim_token.revoked', 'entra', 'cli', {}],
    ],
  );
  const secrets = [token!, okta.token as string];
  for (const secret of secrets) {
    t.notOk(JSON.stringify(audit).includes(secret), 'no token in the audit trail');
    for (const run of [created, taken, table, shown, revoked]) t.notOk(run.stderr.includes(secret), 'no token in stderr');
  }
});
