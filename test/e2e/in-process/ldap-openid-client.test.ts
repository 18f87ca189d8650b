// End to end through a real relying party (openid-client v6): a person who exists only in an LDAP directory signs
// in on the password form, and the relying party's ID token and userinfo carry what the directory says of them
// (OIDC Core 5.1 email, name; the groups its search finds), under a `sub` of this provider's that stays the same at the next sign-in.
import * as oidc from 'openid-client';
import t from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { ALICE_LDAP, directorySeed, SLAPD_MISSING, startLdapServer } from '../../helpers/ldap-server.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';

if (SLAPD_MISSING) {
  // A skipped test, not a plan of 0: in a test group this file's `t` is the whole process's (test/helpers/test-group.ts).
  t.test('the directory tests against a real slapd', { skip: SLAPD_MISSING }, () => {});
} else {
  const directory = await startLdapServer(t);

  t.test('openid-client gets an ID token with the LDAP user email and name', async (t) => {
    const seed = { ...FIXTURES, directories: [directorySeed(directory)] } as unknown as SeedFile;
    const server = await listenTestApp(t, { seed });
    const config = await discoverConfidential(server);
    const person = { username: ALICE_LDAP.uid, password: ALICE_LDAP.password };

    const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!, 'openid profile email groups');
    const { pages, callback } = await visit(server, attempt.authorizationUrl, person);
    t.same(pages, ['login', 'consent']);
    const tokens = await redeem(attempt, callback);
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    t.equal(claims.iss, server.issuer, 'our issuer, not the directory');
    t.equal(claims.nonce, attempt.nonce);
    t.equal(claims.email, ALICE_LDAP.mail, 'OIDC Core 5.1 email from the entry');
    t.equal(claims.email_verified, true);
    t.equal(claims.name, ALICE_LDAP.cn, 'OIDC Core 5.1 name from the entry');
    t.equal(claims.preferred_username, ALICE_LDAP.uid);
    t.same(claims.amr, ['pwd'], 'RFC 8176: a password, checked by the directory');
    t.same(claims.groups, ['admins', 'staff'], 'the groups scope releases the groups the directory search found');

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    t.equal(info.email, ALICE_LDAP.mail);
    t.equal(info.given_name, ALICE_LDAP.givenName);
    t.equal(info.family_name, ALICE_LDAP.sn);
    t.same(info.groups, ['admins', 'staff']);

    const again = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
    const second = await visit(server, again.authorizationUrl, person);
    t.same(second.pages, ['login'], 'consent remembered for the provisioned user');
    t.equal((await redeem(again, second.callback)).claims()?.sub, claims.sub, 'the same sub: the user was linked, not made again');
  });
}
