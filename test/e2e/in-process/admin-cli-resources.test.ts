// `sso-admin resources ...`: resource servers (RFC 8707) as an operator registers them, and a client allowed one.
import t from 'tap';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';

const API = 'https://reports.example/api';

t.test('resources set creates then replaces, list and show read it back, delete asks first; bad input exits 1', async (t) => {
  const store = await adminStore(t);
  const created = await runAdmin(
    [
      'resources',
      'set',
      API,
      '--name',
      'Reports API',
      '--scope',
      'reports:read=Read your reports',
      '--scope',
      'reports:write=Change your reports',
      '--access-token-format',
      'jwt',
      '--access-token-ttl-seconds',
      '600',
      '--json',
    ],
    store.env,
  );
  t.match(json(created), {
    identifier: API,
    name: 'Reports API',
    scopes: { 'reports:read': 'Read your reports', 'reports:write': 'Change your reports' },
    access_token_format: 'jwt',
    access_token_ttl_seconds: 600,
    access_token_signing_alg: 'RS256',
    created: true,
  });
  t.same(events(created), ['admin.resource.created']);
  const replaced = json(await runAdmin(['resources', 'set', API, '--scope', 'reports:read=Read reports', '--json'], store.env));
  t.match(replaced, {
    created: false,
    access_token_format: 'opaque',
    access_token_ttl_seconds: 3600,
    scopes: { 'reports:read': 'Read reports' },
  });
  t.notOk('name' in replaced, 'set replaces the whole entry');
  t.match(json<unknown[]>(await runAdmin(['resources', 'list', '--json'], store.env)), [{ identifier: API }]);
  const shown = await runAdmin(['resources', 'show', API], store.env);
  t.match(shown.stdout, /scope reports:read\s+Read reports/);

  const fragment = await runAdmin(['resources', 'set', `${API}#x`], store.env);
  t.equal(fragment.code, 1);
  t.match(fragment.message, /identifier must not contain a fragment \(RFC 8707 2\)/);
  const ownScope = await runAdmin(['resources', 'set', API, '--scope', 'openid=Sign in'], store.env);
  t.equal(ownScope.code, 1);
  t.match(ownScope.message, /one of this provider's own scopes/);

  const client = await runAdmin(
    [
      'clients',
      'create',
      'worker',
      '--grant-type',
      'client_credentials',
      '--scope',
      'reports:read',
      '--allowed-resource',
      API,
      '--default-resource',
      API,
      '--json',
    ],
    store.env,
  );
  t.match(json(client), { allowed_resources: [API], default_resource: API });
  const notAllowed = await runAdmin(
    ['clients', 'create', 'other', '--grant-type', 'client_credentials', '--default-resource', API],
    store.env,
  );
  t.equal(notAllowed.code, 1);
  t.match(notAllowed.message, /default_resource must be one of allowed_resources/);

  const unconfirmed = await runAdmin(['resources', 'delete', API], store.env);
  t.equal(unconfirmed.code, 2);
  t.same(events(await runAdmin(['resources', 'delete', API, '--yes'], store.env)), ['admin.resource.deleted']);
  t.equal((await runAdmin(['resources', 'show', API], store.env)).code, 1, 'gone');
});
