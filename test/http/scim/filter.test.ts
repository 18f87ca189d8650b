// The SCIM filter parser (src/domain/scim/filter.ts) on the value filters the provisioning clients send: RFC 7644
// 3.4.2.2's valuePath (`emails[type eq "work" and value eq "..."]`) and Microsoft Entra ID's
// `emails[type eq "work"].value eq "..."` ("Tutorial: Develop and plan provisioning for a SCIM endpoint", /Users),
// and what is refused with invalidFilter. The parser is pure, so it is called directly.
import t, { type Test } from 'tap';
import { parseFilter, parseValueFilter } from '../../../src/domain/scim/filter.js';
import { applyPatch } from '../../../src/domain/scim/patch.js';
import { ScimError } from '../../../src/domain/scim/scim-error.js';

/** The ScimError `f` throws, or undefined when it throws none. */
function errorOf(f: () => unknown): ScimError | undefined {
  try {
    f();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  return undefined;
}

function refused(t: Test, f: () => unknown, why: RegExp, scimType = 'invalidFilter'): void {
  const error = errorOf(f);
  t.same([error?.status, error?.scimType], [400, scimType], scimType);
  t.match(error?.message, why);
}

t.test("Entra's work-address query is emails.type and emails.value", async (t) => {
  t.same(parseFilter('emails[type eq "work"].value eq "user@contoso.com"'), [
    { path: 'emails.type', op: 'eq', value: 'work' },
    { path: 'emails.value', op: 'eq', value: 'user@contoso.com' },
  ]);
});

t.test('the RFC valuePath, with a schema URN, quoted brackets, and joined to other comparisons by and', async (t) => {
  t.same(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:emails[type eq "work" and value co "]"] and userName sw "x"'), [
    { path: 'emails.type', op: 'eq', value: 'work' },
    { path: 'emails.value', op: 'co', value: ']' },
    { path: 'username', op: 'sw', value: 'x' },
  ]);
  t.same(parseFilter('userName eq "a" and EMAILS[Type eq "work"]'), [
    { path: 'username', op: 'eq', value: 'a' },
    { path: 'emails.type', op: 'eq', value: 'work' },
  ]);
});

t.test('malformed value filters are refused with invalidFilter (RFC 7644 3.4.2.2, 3.12)', async (t) => {
  refused(t, () => parseFilter('emails[type eq "work"'), /not closed/);
  refused(t, () => parseFilter('emails[type eq "work"] eq "x"'), /only "and"/);
  refused(t, () => parseFilter('name.givenName[x eq "y"]'), /not a value filter/);
  refused(t, () => parseFilter('emails[a[b eq "c"]]'), /may not hold another/);
  refused(t, () => parseFilter('emails[type eq "work"].value'), /operator is expected/);
  refused(t, () => parseFilter('emails[]'), /empty/);
  refused(t, () => parseFilter('emails[type pr]'), /operator is expected/);
});

t.test("a PATCH path's value filter is plain comparisons only", async (t) => {
  t.same(parseValueFilter('value eq "x"'), [{ path: 'value', op: 'eq', value: 'x' }]);
  refused(t, () => parseValueFilter('emails[type eq "work"]'), /not a value filter/);
});

t.test('a path-less replace whose keys are attribute paths sets those paths (RFC 7644 3.5.2.3)', async (t) => {
  const user = { userName: 'u', name: { givenName: 'A', familyName: 'B', formatted: 'A B' }, active: true };
  const next = applyPatch(user, [
    {
      op: 'replace',
      value: {
        'name.givenName': 'C',
        'urn:ietf:params:scim:schemas:core:2.0:User:userName': 'v',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': '7',
      },
    },
  ]);
  t.same(next.name, { givenname: 'C', familyname: 'B', formatted: 'A B' }, 'the other sub-attributes are left as they were');
  t.equal(next.username, 'v');
  t.notOk('name.givenname' in next);
  refused(t, () => applyPatch(user, [{ op: 'replace', value: { 'a.b.c': 1 } }]), /a\.b\.c/, 'invalidPath');
});
