// An organization's connection (issue 40) is offered only to the sign-ins for that organization: its button is on
// their sign-in page and on no other, a login_hint in its domains sends only their sign-ins to it, a start posted for
// another sign-in is refused as if it did not exist, and the account page does not offer it for linking.
import t from 'tap';
import { ALICE, buildTestApp } from '../../helpers/app.js';
import { authorizePath, Browser, hiddenField, localPath, pkcePair } from '../../helpers/flow.js';

const PORTAL = {
  client_id: 'portal',
  client_secret: 'portal-secret-0123456789',
  client_name: 'Partner Portal',
  redirect_uris: ['https://portal.example/cb'],
  organization_usage: 'allow' as const,
};
const connection = (id: string, organization: string | null) => ({
  id,
  kind: 'oidc' as const,
  display_name: `Sign in via ${id}`,
  issuer: `https://${id}.example`,
  client_id: 'ours',
  email_domains: [`${id}.example`],
  organization,
});
const { app } = await buildTestApp(t, {
  seed: {
    clients: [PORTAL],
    users: [ALICE],
    organizations: [
      { slug: 'acme', display_name: 'Acme' },
      { slug: 'globex', display_name: 'Globex' },
    ],
    connections: [connection('shared', null), connection('acme-idp', 'acme'), connection('globex-idp', 'globex')],
  },
});

/** The sign-in page of an authorization request, for an organization or none. */
async function signInPage(params: Record<string, string> = {}) {
  const browser = new Browser();
  let res = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: PORTAL.client_id,
      redirect_uri: PORTAL.redirect_uris[0],
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      ...params,
    }),
  );
  while (res.statusCode === 303 && String(res.headers.location).startsWith('http://localhost:3000/sso/'))
    res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  return { browser, res };
}

const buttons = (body: string) => [...body.matchAll(/connections\/([a-z-]+)\/start/g)].map((m) => m[1]).sort();

t.test("the sign-in page offers an organization's connection to its sign-ins only", async (t) => {
  t.same(buttons((await signInPage()).res.body), ['shared'], 'a sign-in for no organization: the provider-wide one');
  t.same(buttons((await signInPage({ organization: 'acme' })).res.body), ['acme-idp', 'shared'], "Acme's sign-in: Acme's too");
  t.same(buttons((await signInPage({ organization: 'globex' })).res.body), ['globex-idp', 'shared'], "Globex's: not Acme's");
});

t.test("a login_hint in an organization's connection's domains goes upstream only for that organization's sign-ins", async (t) => {
  const plain = await signInPage({ login_hint: 'someone@acme-idp.example' });
  t.equal(plain.res.statusCode, 200, 'a sign-in for no organization stays on the sign-in page');
  t.match(plain.res.body, /type="password"/);
  const forAcme = await signInPage({ organization: 'acme', login_hint: 'someone@acme-idp.example' });
  t.not(forAcme.res.statusCode, 200, "Acme's sign-in is sent on to its connection (here unreachable: an error page)");
  t.notMatch(forAcme.res.body, /type="password"/);
});

t.test('a start posted for another sign-in finds no such connection, and nothing is fetched', async (t) => {
  const { browser, res } = await signInPage({ organization: 'globex' });
  const started = await browser.request(app, 'POST', '/sso/connections/acme-idp/start', {
    interaction: hiddenField(res.body, 'interaction'),
    csrf: hiddenField(res.body, 'csrf'),
  });
  const unknown = await browser.request(app, 'POST', '/sso/connections/no-such-idp/start', {
    interaction: hiddenField(res.body, 'interaction'),
    csrf: hiddenField(res.body, 'csrf'),
  });
  t.equal(started.statusCode, unknown.statusCode, 'the same answer as a connection that does not exist');
  t.equal(started.body, unknown.body);
});
