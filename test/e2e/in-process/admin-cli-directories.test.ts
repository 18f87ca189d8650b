// `sso-admin directories ...` against a real slapd: an operator adds a directory (bind password from stdin, sealed
// at rest), lists and shows it (never the password), tests a login as a sign-in would search it, and removes it.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { KEYS_SECRET } from '../../helpers/account.js';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';
import { REFUSED_PORT } from '../../helpers/listening.js';
import {
  ALICE_LDAP,
  GROUPS_DN,
  PEOPLE_DN,
  SERVICE_DN,
  SERVICE_PASSWORD,
  SLAPD_MISSING,
  startLdapServer,
} from '../../helpers/ldap-server.js';

if (SLAPD_MISSING) {
  // A skipped test, not a plan of 0: in a test group this file's `t` is the whole process's (test/helpers/test-group.ts).
  t.test('the directory tests against a real slapd', { skip: SLAPD_MISSING }, () => {});
} else {
  const server = await startLdapServer(t);
  const dir = mkdtempSync(path.join(tmpdir(), 'sso-ldap-ca-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, server.ca);

  const addArgs = (id: string, url: string, extra: string[] = []) => [
    'directories',
    'add',
    id,
    '--name',
    'Example directory',
    '--url',
    url,
    '--ca-file',
    caFile,
    '--bind-dn',
    SERVICE_DN,
    '--bind-password-stdin',
    '--user-base',
    PEOPLE_DN,
    '--user-filter',
    '(&(objectClass=inetOrgPerson)(uid={login}))',
    '--email-attribute',
    'mail',
    '--name-attribute',
    'cn',
    '--group-base',
    GROUPS_DN,
    '--group-filter',
    '(member={dn})',
    ...extra,
  ];

  t.test('directories add, list, show, test and remove', async (t) => {
    const store = await adminStore(t);
    const env = { ...store.env, ...KEYS_SECRET };
    const added = await runAdmin([...addArgs('corp', server.ldapsUrl), '--json'], env, { input: `${SERVICE_PASSWORD}\n` });
    t.match(json(added), { id: 'corp', url: server.ldapsUrl, created: true, linked_users: 0 });
    t.same(events(added), ['admin.directory.added']);
    t.notOk(added.stdout.includes(SERVICE_PASSWORD) || added.stderr.includes(SERVICE_PASSWORD), 'the password is never printed nor logged');
    const sealed = await store.withDb((db) => db.selectFrom('directories').select('bind_password_sealed').executeTakeFirstOrThrow());
    t.notOk(JSON.stringify(sealed).includes(SERVICE_PASSWORD), 'stored sealed (KEYS_ENCRYPTION_SECRET), not in the clear');
    t.notOk(JSON.stringify(sealed).includes(Buffer.from(SERVICE_PASSWORD).toString('base64url')), 'nor merely encoded');

    const list = await runAdmin(['directories', 'list'], env);
    t.match(list.stdout, /corp\s+Example directory\s+ldaps:\/\/127\.0\.0\.1:\d+\s+yes\s+0/);
    const shown = await runAdmin(['directories', 'show', 'corp'], env);
    t.match(shown.stdout, /bind_dn\s+cn=reader/);
    t.notOk(shown.stdout.includes(SERVICE_PASSWORD));

    const tested = await runAdmin(['directories', 'test', 'corp', ALICE_LDAP.uid], env);
    t.equal(tested.code, 0, tested.stderr);
    t.match(tested.stdout, new RegExp(`dn\\s+${ALICE_LDAP.dn}`));
    t.match(tested.stdout, /external_id\s+[0-9a-f-]{36}/, 'entryUUID');
    t.match(tested.stdout, new RegExp(`email\\s+${ALICE_LDAP.mail}`));
    t.match(tested.stdout, /groups\s+admins, staff/);
    const wildcard = await runAdmin(['directories', 'test', 'corp', '*'], env);
    t.equal(wildcard.code, 1, 'RFC 4515 3: "*" is searched as the login "*", which no entry has');
    t.match(wildcard.message, /no single entry matches that login/);

    const removed = await runAdmin(['directories', 'remove', 'corp', '--yes'], env);
    t.equal(removed.code, 0, removed.stderr);
    t.same(events(removed), ['admin.directory.removed']);
    t.match((await runAdmin(['directories', 'list'], env)).stdout, /no directories/);
  });

  t.test('bad input is refused before anything is written; a directory that does not answer says so', async (t) => {
    const store = await adminStore(t);
    const plain = await runAdmin(addArgs('plain', server.ldapUrl), store.env, { input: SERVICE_PASSWORD });
    t.equal(plain.code, 1);
    t.match(plain.message, /plain ldap:\/\/ sends passwords in the clear/);
    const noPlaceholder = await runAdmin([...addArgs('x', server.ldapsUrl), '--user-filter', '(uid=alice)'], store.env, {
      input: SERVICE_PASSWORD,
    });
    t.equal(noPlaceholder.code, 1);
    t.match(noPlaceholder.message, /user_filter must hold the \{login\} placeholder/);
    const noStdin = await runAdmin(
      addArgs('x', server.ldapsUrl).filter((a) => a !== '--bind-password-stdin'),
      store.env,
    );
    t.equal(noStdin.code, 2, 'no password on a command line');
    t.match(noStdin.message, /--bind-password-stdin/);
    t.match((await runAdmin(['directories', 'list'], store.env)).stdout, /no directories/, 'nothing was written');

    const down = await runAdmin(
      [...addArgs('down', `ldap://127.0.0.1:${REFUSED_PORT}`), '--start-tls', '--connect-timeout-ms', '500'],
      store.env,
      { input: SERVICE_PASSWORD },
    );
    t.equal(down.code, 0, down.stderr);
    const tested = await runAdmin(['directories', 'test', 'down', ALICE_LDAP.uid], store.env);
    t.equal(tested.code, 1);
    t.match(tested.message, /directory "down" did not answer \(Error:ECONNREFUSED\)/);
  });
}
