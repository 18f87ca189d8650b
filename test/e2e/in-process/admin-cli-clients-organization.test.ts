// `sso-admin clients create|update --organization-usage` (issue 40): the client's organization_usage column, shown
// in the client's JSON when not the default, and a value other than none, allow or require refused.
import t from 'tap';
import { adminStore, json, runAdmin } from '../../helpers/admin-cli.js';

t.test('clients create and update set organization_usage; a bad value exits 1 and writes nothing', async (t) => {
  const store = await adminStore(t);
  const usage = () =>
    store.withDb(
      async (db) =>
        (await db.selectFrom('clients').select('organization_usage').where('client_id', '=', 'b2b').executeTakeFirst())?.organization_usage,
    );
  const created = await runAdmin(
    ['clients', 'create', 'b2b', '--redirect-uri', 'https://b2b.example/cb', '--organization-usage', 'allow', '--json'],
    store.env,
  );
  t.equal(created.code, 0);
  t.equal(json(created).organization_usage, 'allow');
  t.equal(await usage(), 'allow');

  const updated = await runAdmin(['clients', 'update', 'b2b', '--organization-usage', 'require', '--json'], store.env);
  t.equal(updated.code, 0);
  t.equal(await usage(), 'require');

  const refused = await runAdmin(['clients', 'update', 'b2b', '--organization-usage', 'sometimes'], store.env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, 'organization_usage must be none, allow or require');
  t.equal(await usage(), 'require', 'unchanged');

  const back = await runAdmin(['clients', 'update', 'b2b', '--remove', 'organization_usage', '--json'], store.env);
  t.equal(back.code, 0);
  t.notOk('organization_usage' in json(back), 'none, the default, is not shown');
  t.equal(await usage(), 'none');
});
