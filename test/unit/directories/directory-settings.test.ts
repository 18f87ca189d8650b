// A directory entry (seed file section `directories`, `sso-admin directories add`) is checked as a whole before
// anything is written: transport security (RFC 4513 3: ldaps:// or StartTLS; plain ldap:// only when allowed
// loudly), URLs, filter templates with their placeholders, the attribute mapping, timeouts.
import t from 'tap';
import { parseSeed, SeedError } from '../../../src/domain/admin/seed.js';
import { directoryProblems, normaliseDirectory } from '../../../src/domain/directories/directory-settings.js';

const GOOD = {
  id: 'corp',
  display_name: 'Corporate directory',
  url: 'ldaps://ldap.example.test',
  bind_dn: 'cn=reader,dc=example,dc=test',
  bind_password: 'reader-password',
  user_base: 'ou=people,dc=example,dc=test',
  user_filter: '(&(objectClass=inetOrgPerson)(uid={login}))',
  attributes: { username: 'uid', id_attribute: 'entryUUID', email: 'mail' },
};

const problemsOf = (changes: Record<string, unknown>) => directoryProblems({ ...GOOD, ...changes });

t.test('a complete entry passes and gets its defaults', async (t) => {
  t.same(directoryProblems(GOOD), []);
  const entry = normaliseDirectory(GOOD);
  t.equal(entry.start_tls, false);
  t.equal(entry.allow_plain_ldap, false);
  t.equal(entry.enabled, true);
  t.equal(entry.order, 0);
  t.equal(entry.connect_timeout_ms, 3000);
  t.equal(entry.operation_timeout_ms, 5000);
  t.equal(entry.attributes.email_verified, false, 'directory addresses are not taken as verified unless said');
  t.notOk('bind_password' in entry, 'the password is not part of the stored settings');
});

t.test('RFC 4513 3: plain ldap:// is refused unless StartTLS or allow_plain_ldap', async (t) => {
  t.match(problemsOf({ url: 'ldap://ldap.example.test' }), [/plain ldap:\/\/ sends passwords in the clear/]);
  t.same(problemsOf({ url: 'ldap://ldap.example.test:389', start_tls: true }), [], 'StartTLS (RFC 4511 4.14)');
  t.same(problemsOf({ url: 'ldap://ldap.example.test', allow_plain_ldap: true }), [], 'allowed loudly');
  t.match(problemsOf({ url: 'ldaps://ldap.example.test', start_tls: true }), [/start_tls is for ldap:\/\//]);
});

t.test('bad URLs are refused', async (t) => {
  t.match(problemsOf({ url: 'not a url' }), [/url is not a URL/]);
  t.match(problemsOf({ url: 'https://ldap.example.test' }), [/must start with ldaps:\/\/ or ldap:\/\//]);
  t.match(problemsOf({ url: 'ldaps://ldap.example.test/dc=example,dc=test' }), [/protocol, host and port only/]);
  t.match(problemsOf({ url: 'ldaps://user:pw@ldap.example.test' }), [/protocol, host and port only/]);
  t.match(problemsOf({ url: '' }), [/url must be a non-empty string/]);
});

t.test('filter templates need their placeholder and must parse (RFC 4515)', async (t) => {
  t.match(problemsOf({ user_filter: '(uid=alice)' }), [/user_filter must hold the \{login\} placeholder/]);
  t.match(problemsOf({ user_filter: '(uid={login}' }), [/user_filter is not an LDAP filter/]);
  t.match(problemsOf({ group_search: { base: 'ou=groups', filter: '(member=x)' } }), [
    /group_search.filter must hold the \{dn\} placeholder/,
  ]);
  t.same(problemsOf({ group_search: { base: 'ou=groups', filter: '(member={dn})' } }), []);
  t.same(problemsOf({ user_filter: '(sAMAccountName={login})' }), [], 'the Active Directory filter');
});

t.test('the mapping, the id, timeouts and unknown fields', async (t) => {
  t.match(problemsOf({ attributes: { username: 'uid' } }), [/attributes.id_attribute must name an attribute/]);
  t.match(problemsOf({ attributes: { ...GOOD.attributes, name: 'c n' } }), [/attributes.name is not an attribute name/]);
  t.match(problemsOf({ attributes: { ...GOOD.attributes, email_verified: 'yes' } }), [/email_verified must be true or false/]);
  t.match(problemsOf({ id: 'Corp Directory' }), [/id must be a slug/]);
  t.match(problemsOf({ connect_timeout_ms: 0 }), [/connect_timeout_ms must be a whole number/]);
  t.match(problemsOf({ bind_password: '' }), [/bind_password must be a non-empty string/]);
  t.match(problemsOf({ ca_certificate: 'not pem' }), [/ca_certificate must hold PEM certificates/]);
  t.match(problemsOf({ colour: 'blue' }), [/unknown field "colour"/]);
});

t.test('the seed file refuses a bad directory with every problem and writes nothing', async (t) => {
  const err = t.throws(() =>
    parseSeed({
      directories: [
        { ...GOOD, url: 'ldap://ldap.example.test' },
        { ...GOOD, user_filter: '(uid=x)' },
      ],
    }),
  ) as SeedError;
  t.ok(err instanceof SeedError);
  t.match(err.problems, [/directories\[0\] \(id "corp"\): plain ldap:\/\//, /directories\[1\] \(id "corp"\): user_filter must hold/]);
  t.throws(() => parseSeed({ directories: [GOOD, GOOD] }), /directory "corp" appears more than once/);
  t.throws(() => parseSeed({ directories: {} }), /"directories" must be an array/);
  t.same(parseSeed({ directories: [GOOD] }).directories, [GOOD]);
});
