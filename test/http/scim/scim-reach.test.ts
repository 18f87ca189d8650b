// What a SCIM client may change (issue 38, docs/scim.md): only the users it provisioned, never a user with a console
// role, and an address it sets is unverified, gets no reset link, and is audited and sent as user.email_changed.
import pino from 'pino';
import t from 'tap';
import { subscribeToEvents } from '../../helpers/webhook-subscription.js';
import { adminContext } from '../../../src/cli/command.js';
import { setRole } from '../../../src/domain/admin/user-admin.js';
import { ERROR, PATCH_OP, scimApp, USER_SCHEMA, type ScimApp } from './scim-app.js';

const ATTACKER = 'mallory@attacker.example';

const replaceEmail = (value: string) => ({
  body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"].value', value }] },
});

/** A user created over SCIM (POST /Users), as Okta or Entra provisions one. */
async function provisioned(api: ScimApp, userName: string): Promise<{ id: string }> {
  const res = await api.call('POST', '/Users', {
    body: { schemas: [USER_SCHEMA], userName, emails: [{ value: `${userName}@corp.example`, type: 'work', primary: true }] },
  });
  if (res.statusCode !== 201) throw new Error(`POST /Users answered ${res.statusCode}: ${res.body}`);
  return res.json() as { id: string };
}

const userRow = (api: ScimApp, id: string) =>
  api.db.selectFrom('users').select(['email', 'email_verified', 'disabled_at']).where('id', '=', id).executeTakeFirstOrThrow();

const aliceId = async (api: ScimApp) =>
  (await api.db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow()).id;

async function forgot(api: ScimApp, login: string) {
  return api.app.inject({
    method: 'POST',
    url: '/sso/account/forgot',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ login }).toString(),
  });
}

const resetMails = (api: ScimApp) =>
  api.db.selectFrom('outbox').select(['user_id', 'address']).where('kind', '=', 'password-reset').orderBy('id').execute();

t.test(
  'RFC 7644 3.12: a SCIM client may not change a console admin: 403, the address stays and no reset link goes elsewhere',
  async (t) => {
    const api = await scimApp(t);
    const ctx = adminContext(api.config, pino({ level: 'silent' }), api.db);
    const user = await provisioned(api, 'ops.lead');
    await setRole(ctx, user.id, 'admin');
    const before = await userRow(api, user.id);
    const patched = await api.call('PATCH', `/Users/${user.id}`, replaceEmail(ATTACKER));
    t.equal(patched.statusCode, 403, 'RFC 7644 3.12: "Operation is not permitted based on the supplied authorization"');
    t.match(patched.json(), { schemas: [ERROR], status: '403' });
    t.notOk(patched.json().scimType, 'no scimType: Table 9 lists them for 400 only');
    const put = await api.call('PUT', `/Users/${user.id}`, {
      body: { schemas: [USER_SCHEMA], userName: 'ops.lead', emails: [{ value: ATTACKER, primary: true }] },
    });
    t.equal(put.statusCode, 403, 'a PUT is refused the same way');
    const deactivated = await api.call('PATCH', `/Users/${user.id}`, {
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
    });
    t.equal(deactivated.statusCode, 403, 'and so is deprovisioning them');
    t.equal((await api.call('DELETE', `/Users/${user.id}`)).statusCode, 403, 'or deleting them');
    t.same(await userRow(api, user.id), before, 'nothing of the user changed');
    await forgot(api, 'ops.lead');
    t.notOk(
      (await resetMails(api)).some((m) => m.address === ATTACKER),
      'no reset link was queued for the address the client asked for',
    );
    t.equal((await api.call('GET', `/Users/${user.id}`)).statusCode, 200, 'reading them is still allowed');
  },
);

t.test('a SCIM client may read a user it did not provision but not change, disable or delete them (403)', async (t) => {
  const api = await scimApp(t);
  const id = await aliceId(api);
  const before = await userRow(api, id);
  t.equal((await api.call('GET', `/Users/${id}`)).statusCode, 200);
  const patched = await api.call('PATCH', `/Users/${id}`, replaceEmail(ATTACKER));
  t.equal(patched.statusCode, 403);
  t.match(patched.json().detail, /not provisioned over SCIM/);
  const put = await api.call('PUT', `/Users/${id}`, { body: { schemas: [USER_SCHEMA], userName: 'alice', emails: [{ value: ATTACKER }] } });
  t.equal(put.statusCode, 403);
  t.equal((await api.call('DELETE', `/Users/${id}`)).statusCode, 403);
  t.same(await userRow(api, id), before, 'alice is as she was');
  t.equal((await api.db.selectFrom('scim_users').selectAll().where('user_id', '=', id).execute()).length, 0, 'and not adopted');
  const audit = await api.db.selectFrom('admin_audit_records').select('event').where('target_id', '=', id).execute();
  t.same(audit, [], 'no change was recorded');
});

t.test('an address a SCIM client sets is unverified, gets no reset link, and is audited and sent as user.email_changed', async (t) => {
  const api = await scimApp(t);
  await subscribeToEvents(api.db, ['user.email_changed']);
  const user = await provisioned(api, 'jo.young');
  // Its owner verified the address since (the account page's link): a reset link may go to it.
  await api.db.updateTable('users').set({ email_verified: true }).where('id', '=', user.id).execute();
  await forgot(api, 'jo.young');
  t.same(
    (await resetMails(api)).map((m) => m.address),
    ['jo.young@corp.example'],
    'a link to the verified address, which the message keeps (outbox.address)',
  );
  const patched = await api.call('PATCH', `/Users/${user.id}`, replaceEmail('jo.young@new.example'));
  t.equal(patched.statusCode, 200, 'a user the client provisioned it may change');
  t.match(await userRow(api, user.id), { email: 'jo.young@new.example', email_verified: false }, 'the new address is unverified');
  t.same(
    (await resetMails(api)).map((m) => m.address),
    ['jo.young@corp.example'],
    'the link already queued still goes to the verified address, not to the new one',
  );
  await forgot(api, 'jo.young');
  t.equal((await resetMails(api)).length, 1, 'no reset link goes to the unverified address');
  const audit = await api.db
    .selectFrom('admin_audit_records')
    .select(['actor_id', 'changes'])
    .where('target_id', '=', user.id)
    .where('event', '=', 'admin.user.updated')
    .execute();
  t.equal(audit.length, 1, 'the change is audited');
  t.equal(audit[0]!.actor_id, 'okta', 'naming the SCIM client');
  t.match(audit[0]!.changes, { email: 'jo.young@new.example', email_verified: false });
  const events = await api.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute();
  t.equal(events.length, 1, 'one user.email_changed event');
  t.match(events[0], {
    event_type: 'user.email_changed',
    payload: {
      user_id: user.id,
      email: 'jo.young@new.example',
      previous_email: 'jo.young@corp.example',
      email_verified: false,
      via: 'scim',
    },
  });
});
