// Microsoft Entra provisioning with a "Secret Token" (a long-lived SCIM token, src/domain/scim/scim-tokens.ts) in
// place of an OAuth client: "Test Connection" queries a user that does not exist, then a sync creates one and
// disables it, as entra.test.ts replays them; each change names the token as its actor. Once revoked, the same
// request is refused with 401.
import pino from 'pino';
import t from 'tap';
import { createScimToken, revokeScimToken } from '../../../src/domain/scim/scim-tokens.js';
import { ERROR, LIST_RESPONSE, PATCH_OP, scimApp, USER_SCHEMA } from './scim-app.js';

const api = await scimApp(t);
const admin = { db: api.db, clock: () => new Date(), log: pino({ level: 'silent' }), actor: { kind: 'cli', osUser: 'ops' } as const };
const { secret } = await createScimToken(admin, { name: 'entra-prod' });
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const USER_NAME = 'Test_User_00aa00aa-00aa-00aa-00aa-00aa00aa00aa@testuser.com';
let userId = '';

t.test('Test Connection: a filter on a random userName answers an empty list (RFC 7644 3.4.2)', async (t) => {
  const res = await api.call('GET', `/Users?filter=${encodeURIComponent('userName eq "non-existent user"')}`, { token: secret });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { schemas: [LIST_RESPONSE], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
});

t.test('Entra creates a user and disables it with active "False"; the audit records name the token', async (t) => {
  const created = await api.call('POST', '/Users', {
    token: secret,
    body: {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId: '11bb11bb-11bb-11bb-11bb-11bb11bb11bb',
      userName: USER_NAME,
      active: true,
      emails: [{ primary: true, type: 'work', value: USER_NAME }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { department: 'Sales' },
    },
  });
  t.equal(created.statusCode, 201);
  userId = created.json().id;
  t.equal(created.json().userName, USER_NAME);
  t.equal(created.json().externalId, '11bb11bb-11bb-11bb-11bb-11bb11bb11bb');
  const disabled = await api.call('PATCH', `/Users/${userId}`, {
    token: secret,
    body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
  });
  t.equal(disabled.statusCode, 200);
  t.equal(disabled.json().active, false);
  const events = await api.db
    .selectFrom('admin_audit_records')
    .select(['event', 'actor_kind', 'actor_id'])
    .where('target_id', '=', userId)
    .orderBy('id')
    .execute();
  t.same(
    events.map((e) => [e.event, e.actor_kind, e.actor_id]),
    [
      ['admin.user.created', 'client', 'scim-token:entra-prod'],
      ['admin.user.disabled', 'client', 'scim-token:entra-prod'],
    ],
  );
});

t.test('after the token is revoked, the same request is a 401 in a SCIM error body', async (t) => {
  await revokeScimToken(admin, 'entra-prod');
  const res = await api.call('GET', `/Users/${userId}`, { token: secret });
  t.equal(res.statusCode, 401);
  t.match(res.headers['www-authenticate'], /error="invalid_token"/);
  t.same(res.json(), { schemas: [ERROR], status: '401', detail: 'the access token is invalid, expired or revoked' });
  t.equal((await api.call('GET', `/Users/${userId}`, { token: api.entra })).statusCode, 200, 'a client_credentials token still works');
});
