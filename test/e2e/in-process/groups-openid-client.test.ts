// Groups (issue 20) with openid-client v6 as the relying party against the provider listening on loopback: the
// `groups` claim in the ID token and at userinfo, and a client limited to groups admitting a member and refusing
// anybody else (a page that says why, whose link gives the client access_denied; prompt=none gets it at once).
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, BOB, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { CookieJar, visit } from '../../helpers/fetch-browser.js';
import { decodeEntities } from '../../helpers/form-post.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, discoverConfidential, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';

/** Only members of Staff may sign in to it. */
const HR = {
  client_id: 'hr',
  client_name: 'HR Portal',
  client_secret: 'hr-secret-0123456789',
  redirect_uris: ['https://hr.example/cb'],
  allowed_groups: ['Staff'],
};
/** Only members of Contractors, a group whose members come from an upstream provider's mapping here. */
const VENDORS = {
  ...HR,
  client_id: 'vendors',
  client_name: 'Vendor Desk',
  redirect_uris: ['https://vendors.example/cb'],
  allowed_groups: ['contractors'],
};

const server = await listenTestApp(t, {
  seed: {
    ...FIXTURES,
    clients: [...FIXTURES.clients, HR, VENDORS],
    groups: [{ name: 'Staff', description: 'Employees', members: [ALICE.username] }, { name: 'Contractors' }],
  },
});
const origin = new URL(server.baseUrl).origin;
const configFor = (client: typeof HR) =>
  discover(server, client.client_id, oidc.ClientSecretBasic(client.client_secret), client.client_secret);
/** What an upstream provider or a directory maps into a user's claims (src/domain/connections/federated-sign-in.ts). */
const setMappedGroups = async (username: string, groups: string[] | undefined) => {
  const user = await server.db.selectFrom('users').select(['id', 'claims']).where('username', '=', username).executeTakeFirstOrThrow();
  await server.db
    .updateTable('users')
    .set({ claims: JSON.stringify({ ...user.claims, groups }) as never })
    .where('id', '=', user.id)
    .execute();
};

/** A browser that signs in and stops at the first page that is neither a redirect nor the sign-in or consent form. */
type Stop = { kind: 'client'; callback: URL } | { kind: 'page'; status: number; headers: Headers; body: string };

async function browse(start: URL, user: { username: string; password: string }, jar: CookieJar): Promise<Stop> {
  let url = start;
  let form: Record<string, string> | undefined;
  for (let step = 0; step < 10; step += 1) {
    if (url.origin !== origin) return { kind: 'client', callback: url };
    const cookie = jar.header(url);
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers: { ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    });
    jar.store(response);
    if (response.status === 303) {
      url = new URL(response.headers.get('location')!, url);
      form = undefined;
      continue;
    }
    const body = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1];
    const csrf = /<input type="hidden" name="csrf" value="([^"]*)">/.exec(body)?.[1];
    if (response.status !== 200 || !action || !csrf) return { kind: 'page', status: response.status, headers: response.headers, body };
    url = new URL(decodeEntities(action));
    form = body.includes('type="password"')
      ? { csrf: decodeEntities(csrf), login: user.username, password: user.password }
      : { csrf: decodeEntities(csrf), decision: 'allow' };
  }
  throw new Error('too many steps');
}

t.test('OIDC Core 5.4: the groups scope releases the groups claim, in the ID token (5.1) and at userinfo (5.3.2)', async (t) => {
  await setMappedGroups(ALICE.username, ['admins']);
  t.teardown(() => setMappedGroups(ALICE.username, undefined));
  const config = await discoverConfidential(server);
  const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!, 'openid groups');
  const tokens = await redeem(attempt, (await visit(server, attempt.authorizationUrl, ALICE)).callback);
  const idToken = tokens.claims()!;
  t.same(idToken.groups, ['Staff', 'admins'], 'the sorted union of her group here and the one mapped from upstream');
  const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
  t.same(info.groups, ['Staff', 'admins']);

  const profile = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!, 'openid profile');
  const without = await redeem(profile, (await visit(server, profile.authorizationUrl, ALICE)).callback);
  t.notOk('groups' in without.claims()!, 'OIDC Core 5.4: not without the scope');
  t.notOk('groups' in (await oidc.fetchUserInfo(config, without.access_token, without.claims()!.sub)));
});

t.test('a client limited to a group admits its member: the code flow completes', async (t) => {
  const config = await configFor(HR);
  const attempt = await prepareAttempt(config, HR.redirect_uris[0]!, 'openid groups');
  const tokens = await redeem(attempt, (await visit(server, attempt.authorizationUrl, ALICE)).callback);
  t.same(tokens.claims()!.groups, ['Staff']);
});

t.test('RFC 6749 4.1.2.1: a non-member is told why on a page whose link gives the client access_denied with state and iss', async (t) => {
  const config = await configFor(HR);
  const attempt = await prepareAttempt(config, HR.redirect_uris[0]!, 'openid');
  const jar = new CookieJar();
  const page = await browse(attempt.authorizationUrl, BOB, jar);
  if (page.kind !== 'page') throw new Error(`expected the refusal page, went to ${page.callback.href}`);
  t.equal(page.status, 403);
  t.match(page.body, 'You are signed in, but you are not in a group that HR Portal allows.');
  t.equal(page.headers.get('x-frame-options'), 'DENY', 'the headers of every page');
  t.match(page.headers.get('content-security-policy') ?? '', "default-src 'none'");
  const href = /<a href="([^"]+)">Return to hr\.example<\/a>/.exec(page.body)?.[1];
  t.ok(href, 'a link back to the application');
  const link = new URL(decodeEntities(href!));
  t.equal(link.origin + link.pathname, HR.redirect_uris[0]);
  t.equal(link.searchParams.get('error'), 'access_denied');
  t.equal(link.searchParams.get('state'), attempt.state);
  t.equal(link.searchParams.get('iss'), server.issuer, 'RFC 9207');
  const err = await rejection(redeem(attempt, link));
  t.ok(err instanceof oidc.AuthorizationResponseError, 'openid-client reads it as an authorization error response');
  t.equal((err as oidc.AuthorizationResponseError).error, 'access_denied');

  // OIDC Core 3.1.2.6: with prompt=none and Bob's session, the client hears access_denied at once, with no page.
  const silent = await prepareAttempt(config, HR.redirect_uris[0]!, 'openid', { prompt: 'none' });
  const answer = await browse(silent.authorizationUrl, BOB, jar);
  if (answer.kind !== 'client') throw new Error(`expected a redirect, got HTTP ${answer.status}`);
  t.equal(answer.callback.searchParams.get('error'), 'access_denied');
  t.equal(answer.callback.searchParams.get('state'), silent.state);
  t.equal(answer.callback.searchParams.get('iss'), server.issuer);
});

t.test('a group name an upstream provider or a directory mapped admits its user, in any case', async (t) => {
  await setMappedGroups(BOB.username, ['Contractors']);
  t.teardown(() => setMappedGroups(BOB.username, undefined));
  const config = await configFor(VENDORS);
  const attempt = await prepareAttempt(config, VENDORS.redirect_uris[0]!, 'openid groups');
  const tokens = await redeem(attempt, (await visit(server, attempt.authorizationUrl, BOB)).callback);
  t.same(tokens.claims()!.groups, ['Contractors']);
});
