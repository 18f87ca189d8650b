// The same change of a webhook subscription, made through the command line, the management API and the console,
// gives the same result and the same audit record (event and fields changed; actor, time and ids aside): all three
// call updateWebhook and pauseWebhook (src/domain/webhooks/webhook-admin.ts).
import t from 'tap';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { ADMIN_FIXTURES, adminApiApp } from '../../helpers/admin-api.js';
import { adminStore, runAdmin } from '../../helpers/admin-cli.js';
import type { Db } from '../../../src/storage/database.js';

const ADA = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const api = await adminApiApp(t, { seed: { ...ADMIN_FIXTURES, users: [...ADMIN_FIXTURES.users, ADA] } });
const store = await adminStore(t);
const cookie = await startConsoleSession({ db: api.db, clock: () => new Date() }, (await findUserByUsername(api.db, ADA.username))!.id);
const consoleGet = (url: string) => api.app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}` } });
const csrf = /name="csrf" value="([^"]+)"/.exec((await consoleGet('/admin')).body)![1]!;
const consolePost = (url: string, fields: Array<[string, string]>) =>
  api.app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams([['csrf', csrf], ...fields]).toString(),
  });

const START = { url: 'https://crm.example.com/in', events: ['user.created'], description: 'the CRM' };
const NEW_URL = 'https://crm2.example.com/hooks/capability-123';

/** What the three must agree on: the subscription as set and the audit records of `id`, actor and time aside. */
async function outcome(db: Db, id: string) {
  const row = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const records = await db
    .selectFrom('admin_audit_records')
    .select(['event', 'target_type', 'changes'])
    .where('target_id', '=', id)
    .where('event', 'in', ['admin.webhook.updated', 'admin.webhook.paused'])
    .orderBy('id')
    .execute();
  const state = { url: row.url, events: row.event_types, description: row.description, enabled: row.enabled, reason: row.pause_reason };
  return { state, paused: row.paused_at !== null, records };
}

t.test('the command line, the API and the console make the same update and pause, and record them alike', async (t) => {
  // The command line, on a database of its own.
  const added = await runAdmin(
    ['webhooks', 'add', 'crm', '--url', START.url, '--event', START.events[0]!, '--description', START.description],
    store.env,
  );
  t.equal(added.code, 0, added.stderr);
  const cli = await runAdmin(
    [
      'webhooks',
      'update',
      'crm',
      '--url',
      NEW_URL,
      '--events',
      'user.created,user.deleted',
      '--description',
      '',
      '--enabled',
      'false',
      '--rotate-secret',
    ],
    store.env,
  );
  t.equal(cli.code, 0, cli.stderr);
  t.equal((await runAdmin(['webhooks', 'pause', 'crm', '--reason', 'CRM upgrade'], store.env)).code, 0);

  // The API, as a client granted admin:write.
  t.equal((await api.call(t, 'POST', '/webhooks', { body: { id: 'crm', ...START } })).statusCode, 201);
  const etag = (await api.call(t, 'GET', '/webhooks/crm')).headers.etag as string;
  const patched = await api.call(t, 'PATCH', '/webhooks/crm', {
    body: { url: NEW_URL, events: ['user.created', 'user.deleted'], description: null, enabled: false, rotate_secret: true },
    headers: { 'if-match': etag },
  });
  t.equal(patched.statusCode, 200);
  t.equal((await api.call(t, 'POST', '/webhooks/crm/pause', { body: { reason: 'CRM upgrade' } })).statusCode, 200);

  // The console, as a person with the admin role (another subscription of the same app, created the same way).
  t.equal((await api.call(t, 'POST', '/webhooks', { body: { id: 'crm-console', ...START } })).statusCode, 201);
  // The console's form carries the revision it was made from, the API's ETag (a stale one is refused with 412).
  const revision = (await api.call(t, 'GET', '/webhooks/crm-console')).headers.etag as string;
  const edited = await consolePost('/admin/webhooks/crm-console/edit', [
    ['revision', revision],
    ['url', NEW_URL],
    ['description', ''],
    ['event:user.created', 'on'],
    ['event:user.deleted', 'on'],
    ['rotate_secret', 'on'],
  ]);
  t.equal(edited.statusCode, 200, 'the page with the new secret');
  t.equal((await consolePost('/admin/webhooks/crm-console/pause', [['reason', 'CRM upgrade']])).statusCode, 303);

  const viaCli = await store.withDb((db) => outcome(db, 'crm'));
  const viaApi = await outcome(api.db, 'crm');
  const viaConsole = await outcome(api.db, 'crm-console');
  t.same(viaCli.state, {
    url: NEW_URL,
    events: ['user.created', 'user.deleted'],
    description: null,
    enabled: false,
    reason: 'CRM upgrade',
  });
  t.same(viaCli.records, [
    {
      event: 'admin.webhook.updated',
      target_type: 'webhook',
      changes: {
        host: 'crm2.example.com',
        events: ['user.created', 'user.deleted'],
        description: null,
        enabled: false,
        secret: '(not recorded)',
      },
    },
    { event: 'admin.webhook.paused', target_type: 'webhook', changes: { paused: true, reason: 'CRM upgrade' } },
  ]);
  t.same(viaApi, viaCli, 'the API: the same result and the same records');
  t.same(viaConsole, viaCli, 'the console: the same result and the same records');
});
