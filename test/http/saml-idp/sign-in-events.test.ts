// The security event of a sign-in made for a SAML request names the SP as an OIDC sign-in's names the client
// (issue 39): client_id "saml:" and the SP's entityID, in the stored event and so in its sign_in.succeeded webhook.
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import t from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { ALICE, buildTestApp } from '../../helpers/app.js';
import { Browser, formAction, hiddenField } from '../../helpers/flow.js';
import { SP_ACS, SP_ENTITY_ID, spMetadata } from '../../helpers/saml-idp/sp-metadata.js';

const path = (url: string) => {
  const u = new URL(url, 'http://localhost:3000');
  return `${u.pathname}${u.search}`;
};

t.test('a sign-in made for a waiting SAML request records sign_in_allowed naming the SP (Profiles §4.1.3)', async (t) => {
  const { app, db } = await buildTestApp(t);
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: await spMetadata(), name_id_format: 'transient' }), new Date());
  const metadata = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
  const saml = new SAML({
    entryPoint: 'http://localhost:3000/sso/saml/sso',
    idpCert: /<ds:X509Certificate>([^<]+)</.exec(metadata.body)![1]!,
    issuer: SP_ENTITY_ID,
    callbackUrl: SP_ACS,
    audience: SP_ENTITY_ID,
    validateInResponseTo: ValidateInResponseTo.never,
    identifierFormat: null,
  });
  const browser = new Browser();
  const started = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
  const page = await browser.request(app, 'GET', path(String(started.headers.location)));
  const signedIn = await browser.request(app, 'POST', formAction(page.body), {
    csrf: hiddenField(page.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(signedIn.statusCode, 303);
  t.match(String(signedIn.headers.location), /\/saml\/resume$/);
  const events = await db.selectFrom('security_events').select(['type', 'client_id']).where('type', '=', 'sign_in_allowed').execute();
  t.same(events, [{ type: 'sign_in_allowed', client_id: `saml:${SP_ENTITY_ID}` }], 'the SP named where an OIDC sign-in names its client');
});

t.test('a sign-in on the account page with no SAML request waiting names no relying party', async (t) => {
  const { app, db } = await buildTestApp(t);
  const browser = new Browser();
  const page = await browser.request(app, 'GET', '/sso/account/sign-in');
  await browser.request(app, 'POST', formAction(page.body), {
    csrf: hiddenField(page.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  const events = await db.selectFrom('security_events').select(['client_id']).where('type', '=', 'sign_in_allowed').execute();
  t.same(events, [{ client_id: null }]);
});
