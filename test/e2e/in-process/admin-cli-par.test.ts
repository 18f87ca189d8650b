// The client fields of pushed and signed authorization requests (RFC 9126 6, OIDC Registration 2) as an operator sets
// them: `sso-admin clients create/update` and the seed file, checked by the same rules as registration.
import t from 'tap';
import { clientEntryProblems } from '../../../src/domain/client-entry.js';
import { adminStore, json, runAdmin } from '../../helpers/admin-cli.js';

t.test('clients create and update take --require-pushed-authorization-requests and --request-object-signing-alg', async (t) => {
  const store = await adminStore(t);
  const created = await runAdmin(
    [
      'clients',
      'create',
      'strict',
      '--redirect-uri',
      'https://strict.example/cb',
      '--require-pushed-authorization-requests',
      'true',
      '--request-object-signing-alg',
      'PS256',
      '--json',
    ],
    store.env,
  );
  t.match(json(created), { client_id: 'strict', require_pushed_authorization_requests: true, request_object_signing_alg: 'PS256' });
  const row = await store.withDb((db) => db.selectFrom('clients').select('metadata').where('client_id', '=', 'strict').executeTakeFirst());
  t.match(row!.metadata, { require_pushed_authorization_requests: true, request_object_signing_alg: 'PS256' }, 'kept in the metadata');

  const unsigned = await runAdmin(['clients', 'update', 'strict', '--request-object-signing-alg', 'none'], store.env);
  t.equal(unsigned.code, 1, 'alg none is refused: unsigned request objects never are accepted');
  t.match(unsigned.message, /request_object_signing_alg must be one of/);
  const maybe = await runAdmin(['clients', 'update', 'strict', '--require-pushed-authorization-requests', 'maybe'], store.env);
  t.equal(maybe.code, 2, 'a usage error');
  t.match(maybe.message, /--require-pushed-authorization-requests must be true or false/);
});

t.test('the seed file refuses a request_object_signing_alg it cannot verify and a non-boolean requirement', async (t) => {
  const entry = { client_id: 'c', client_secret: 'a-long-enough-secret-0123', redirect_uris: ['https://c.example/cb'] };
  t.same(clientEntryProblems({ ...entry, request_object_signing_alg: 'ES256', require_pushed_authorization_requests: false }), []);
  t.match(clientEntryProblems({ ...entry, request_object_signing_alg: 'none' }), [/request_object_signing_alg must be one of/]);
  t.match(clientEntryProblems({ ...entry, request_object_signing_alg: 'HS256' }), [/request_object_signing_alg must be one of/]);
  t.match(clientEntryProblems({ ...entry, require_pushed_authorization_requests: 'yes' }), [/must be true or false/]);
});
