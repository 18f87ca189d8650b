// `sso-admin webhooks ...` as an operator runs it, on a database of the test's own, in this process (see
// admin-cli-clients.test.ts): add with a secret printed once (or read from stdin), the SSRF refusal, list, show with
// the reason of a pause, deliveries, resume and remove; never a secret in a log line.
import t from 'tap';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';

t.test('webhooks add prints a generated secret once; a private address is refused; list, show, deliveries, resume, remove', async (t) => {
  const store = await adminStore(t);
  const empty = await runAdmin(['webhooks', 'list'], store.env);
  t.equal(empty.code, 0, empty.stderr);
  t.equal(empty.stdout, 'no webhooks\n');

  const added = await runAdmin(
    ['webhooks', 'add', 'siem', '--url', 'https://siem.example.com/in', '--event', 'sign_in.failed', '--event', 'risk.blocked'],
    store.env,
  );
  t.equal(added.code, 0, added.stderr);
  const [, secret] = /\nsecret: (\S+)\n/.exec(added.stdout) ?? [];
  t.match(added.stdout, /^webhook "siem" added: sign_in.failed risk.blocked to https:\/\/siem.example.com\/in\n/);
  t.match(secret, /^[\w-]{43}$/, '256 random bits, base64url');
  t.match(added.stdout, 'This is the only time the secret of "siem" is shown');
  t.same(events(added), ['admin.webhook.created']);
  t.notOk(added.stderr.includes(secret!), 'the secret is not logged');

  const own = 'an-operator-chosen-secret-of-40-characters';
  const stdinRun = await runAdmin(
    ['webhooks', 'add', 'hr', '--url', 'https://hr.example.com/sso', '--event', '*', '--secret-stdin', '--json'],
    store.env,
    { input: `${own}\n` },
  );
  const fromStdin = json(stdinRun);
  t.match(fromStdin, { id: 'hr', events: ['*'], enabled: true, paused_at: null });
  t.notOk('secret' in fromStdin, 'a secret the operator gave is not printed back');

  const refused = await runAdmin(['webhooks', 'add', 'meta', '--url', 'https://169.254.169.254/latest', '--event', '*'], store.env);
  t.equal(refused.code, 1);
  t.match(refused.message, /webhook "meta" was refused: url must not point to this machine or a private network/);
  const taken = await runAdmin(['webhooks', 'add', 'hr', '--url', 'https://hr.example.com/other', '--event', '*'], store.env);
  t.equal(taken.code, 1);
  t.match(taken.message, 'webhook "hr" exists already');

  const table = await runAdmin(['webhooks', 'list'], store.env);
  t.same(
    table.stdout
      .trimEnd()
      .split('\n')
      .map((r) => r.split(/ {2,}/)),
    [
      ['id', 'state', 'url', 'events', 'failures'],
      ['hr', 'active', 'https://hr.example.com/sso', '*', '0'],
      ['siem', 'active', 'https://siem.example.com/in', 'sign_in.failed risk.blocked', '0'],
    ],
  );

  await store.withDb(async (db) => {
    await emitWebhookEvent({ clock: () => new Date() }, db, 'sign_in.failed', { method: 'password', user_id: null });
    await db
      .updateTable('webhook_subscriptions')
      .set({ paused_at: new Date(), pause_reason: '8 deliveries failed in a row; the last: the receiver answered 503' })
      .where('id', '=', 'siem')
      .execute();
  });
  const shown = await runAdmin(['webhooks', 'show', 'siem'], store.env);
  t.match(shown.stdout, /state +paused\n/);
  t.match(shown.stdout, /pause_reason +8 deliveries failed in a row; the last: the receiver answered 503\n/);
  t.match(shown.stdout, /secret +\(set, sealed\)\n/);
  t.match(shown.stdout, /pending +1\n/);
  t.match(json(await runAdmin(['webhooks', 'deliveries', 'siem', '--json'], store.env)), [
    { type: 'sign_in.failed', status: 'pending', attempts: 0, last_error: null },
  ]);
  t.equal((await runAdmin(['webhooks', 'deliveries', 'siem', '--status', 'sent'], store.env)).code, 2, 'a bad status is a usage error');

  const resumed = await runAdmin(['webhooks', 'resume', 'siem'], store.env);
  t.equal(resumed.stdout, 'webhook "siem" resumed; 1 pending deliveries will be sent in order\n');
  t.same(events(resumed), ['admin.webhook.resumed']);
  t.match(json(await runAdmin(['webhooks', 'show', 'siem', '--json'], store.env)), { paused_at: null, pause_reason: null });

  const removed = await runAdmin(['webhooks', 'remove', 'siem', '--yes'], store.env);
  t.equal(removed.stdout, 'webhook "siem" removed (1 pending deliveries dropped)\n');
  t.same(events(removed), ['admin.webhook.removed']);
  const gone = await runAdmin(['webhooks', 'show', 'siem'], store.env);
  t.equal(gone.code, 1);
  t.match(gone.message, 'no webhook "siem" (webhooks list shows them)');
  for (const run of [added, stdinRun, refused, taken, resumed, removed]) t.notOk(run.stderr.includes(own), 'no secret in stderr');
});

t.test('webhooks update changes a subscription in place and rotates its secret once; pause takes a reason', async (t) => {
  const store = await adminStore(t);
  const added = await runAdmin(['webhooks', 'add', 'crm', '--url', 'https://crm.example.com/in', '--event', 'user.created'], store.env);
  const [, first] = /\nsecret: (\S+)\n/.exec(added.stdout) ?? [];
  await store.withDb((db) => emitWebhookEvent({ clock: () => new Date() }, db, 'user.created', { id: 'u1' }));

  const nothing = await runAdmin(['webhooks', 'update', 'crm'], store.env);
  t.equal(nothing.code, 2, 'nothing to change is a usage error');
  t.match(nothing.message, 'nothing to change');
  const badEnabled = await runAdmin(['webhooks', 'update', 'crm', '--enabled', 'yes'], store.env);
  t.equal(badEnabled.code, 2);
  t.match(badEnabled.message, '--enabled must be true or false');
  const privateUrl = await runAdmin(['webhooks', 'update', 'crm', '--url', 'https://192.168.1.10/in'], store.env);
  t.equal(privateUrl.code, 1);
  t.match(privateUrl.message, /webhook "crm" was not changed: url must not point to this machine or a private network/);
  const unknown = await runAdmin(['webhooks', 'update', 'crm', '--events', 'user.created,user.exploded'], store.env);
  t.equal(unknown.code, 1);
  t.match(unknown.message, /"user\.exploded" is not an event type/);

  const updated = await runAdmin(
    [
      'webhooks',
      'update',
      'crm',
      '--url',
      'https://crm2.example.com/in',
      '--events',
      'user.created,user.deleted',
      '--description',
      'the CRM',
      '--enabled',
      'false',
    ],
    store.env,
  );
  t.equal(updated.code, 0, updated.stderr);
  t.equal(updated.stdout, 'webhook "crm" updated: url, events, description, enabled\n');
  t.same(events(updated), ['admin.webhook.updated']);
  t.match(json(await runAdmin(['webhooks', 'show', 'crm', '--json'], store.env)), {
    url: 'https://crm2.example.com/in',
    events: ['user.created', 'user.deleted'],
    description: 'the CRM',
    enabled: false,
    pending: 1,
  });
  t.equal((await runAdmin(['webhooks', 'update', 'crm', '--enabled', 'false'], store.env)).stdout, 'webhook "crm" unchanged\n');

  const rotated = await runAdmin(['webhooks', 'update', 'crm', '--rotate-secret'], store.env);
  t.equal(rotated.code, 0, rotated.stderr);
  const [, secret] = /\nsecret: (\S+)\n/.exec(rotated.stdout) ?? [];
  t.match(secret, /^[\w-]{43}$/);
  t.not(secret, first);
  t.match(rotated.stdout, 'This is the only time the new secret of "crm" is shown');
  t.notOk(rotated.stderr.includes(secret!), 'the secret is not logged');
  const record = await store.withDb((db) =>
    db.selectFrom('admin_audit_records').selectAll().where('event', '=', 'admin.webhook.updated').orderBy('id', 'desc').executeTakeFirst(),
  );
  t.same(record?.changes, { secret: '(not recorded)' });

  t.equal((await runAdmin(['webhooks', 'pause', 'crm'], store.env)).code, 2, '--reason is required');
  const paused = await runAdmin(['webhooks', 'pause', 'crm', '--reason', 'the CRM is being upgraded'], store.env);
  t.equal(paused.code, 0, paused.stderr);
  t.equal(paused.stdout, 'webhook "crm" paused: the CRM is being upgraded; its 1 pending deliveries wait until it is resumed\n');
  t.same(events(paused), ['admin.webhook.paused']);
  t.match((await runAdmin(['webhooks', 'show', 'crm'], store.env)).stdout, /pause_reason +the CRM is being upgraded\n/);
  const twice = await runAdmin(['webhooks', 'pause', 'crm', '--reason', 'again'], store.env);
  t.equal(twice.code, 1);
  t.match(twice.message, 'webhook "crm" is paused already');
  t.equal((await runAdmin(['webhooks', 'pause', 'nobody', '--reason', 'x'], store.env)).code, 1);
});
