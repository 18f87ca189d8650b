// The typed login inside a search filter (issue 19): RFC 4515 3 assertion-value escaping, so that no login can
// change the filter's shape, and the stored identifiers searched octet by octet.
import { FilterParser } from 'ldapts';
import t from 'tap';
import { escapeValue, groupSearchFilter, idFilter, userSearchFilter } from '../../../src/domain/directories/filters.js';
import { externalIdOf, externalIdValue, groupName } from '../../../src/domain/directories/entry-profile.js';

t.test('RFC 4515 3: *, (, ), \\ and NUL are written as a backslash and two hex digits', async (t) => {
  t.equal(escapeValue('*'), '\\2a');
  t.equal(escapeValue('('), '\\28');
  t.equal(escapeValue(')'), '\\29');
  t.equal(escapeValue('\\'), '\\5c');
  t.equal(escapeValue('\u0000'), '\\00');
  t.equal(escapeValue('alice-ldap'), 'alice-ldap', 'other characters stay as they are');
  t.equal(escapeValue('zoë'), 'zoë', 'UTF-8 is allowed as is (RFC 4515 3: UTF1SUBSET and UTFMB)');
});

t.test('a login cannot add an assertion or a wildcard to the user filter', async (t) => {
  const template = '(&(objectClass=inetOrgPerson)(uid={login}))';
  for (const login of ['*', 'alice-ldap)(uid=*', '*)(|(uid=*', 'a\\', 'x\u0000', '(x)']) {
    const filter = userSearchFilter(template, login);
    const parsed = FilterParser.parseString(filter);
    t.equal(parsed.type, FilterParser.parseString(userSearchFilter(template, 'plain')).type, `${JSON.stringify(login)}: still one AND`);
    t.notMatch(filter, /\(uid=\*\)|uid=[^)]*\*[^)]*\)/, `${JSON.stringify(login)}: no wildcard reaches the filter`);
    // The parsed assertion holds the login exactly, as one value.
    const uid = (parsed as unknown as { filters: Array<{ attribute: string; value: unknown }> }).filters[1]!;
    t.equal(uid.attribute, 'uid');
    t.equal(String(uid.value), login, `${JSON.stringify(login)}: the value is the login itself`);
  }
});

t.test('every {login} and {dn} placeholder is filled, escaped', async (t) => {
  t.equal(userSearchFilter('(|(uid={login})(mail={login}))', 'a*'), '(|(uid=a\\2a)(mail=a\\2a))');
  t.equal(groupSearchFilter('(member={dn})', 'cn=x\\2c y,dc=t'), '(member=cn=x\\5c2c y,dc=t)');
});

t.test('a binary identifier (objectGUID) is stored as base64 and searched octet by octet', async (t) => {
  const guid = Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex');
  const stored = externalIdOf({ dn: 'cn=x', objectGUID: guid }, 'objectGUID');
  t.equal(stored, guid.toString('base64'));
  t.same(externalIdValue(stored!, 'objectGUID'), guid);
  t.equal(idFilter('objectGUID', guid), '(objectGUID=\\01\\02\\03\\04\\05\\06\\07\\08\\09\\0a\\0b\\0c\\0d\\0e\\0f\\10)');
  t.equal(externalIdOf({ dn: 'cn=x', entryUUID: 'abc' }, 'entryuuid'), 'abc', 'attribute names match in any case (RFC 4512 2.5)');
});

t.test('a group DN gives the value of its first RDN (RFC 4514)', async (t) => {
  t.equal(groupName('cn=staff,ou=groups,dc=example,dc=test'), 'staff');
  t.equal(groupName('CN=Domain Admins,CN=Users,DC=corp,DC=example'), 'Domain Admins');
  t.equal(groupName('cn=R\\2cD,ou=groups'), 'R,D', 'escaped characters unescaped');
  t.equal(groupName('plain-name'), 'plain-name', 'a value that is not a DN stays');
});
