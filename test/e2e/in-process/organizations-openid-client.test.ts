// Sign-ins and tokens for an organization (issue 40) with openid-client v6 as the relying party against the provider
// listening on loopback: the `organization` parameter (at /authorize and in PAR), org_id and org_name (and org_roles)
// in the ID token, at userinfo, in RFC 9068 access tokens and in introspection, members only, the pick page of a
// `require` client, and refresh for as long as the membership lasts.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import pino from 'pino';
import t from 'tap';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import type { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import {
  addOrganizationMember,
  createOrganization,
  removeOrganizationMember,
} from '../../../src/domain/organizations/organization-admin.js';
import { ALICE, BOB, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { CookieJar } from '../../helpers/fetch-browser.js';
import { decodeEntities } from '../../helpers/form-post.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, discoverConfidential, prepareAttempt, redeem, type Attempt } from '../../helpers/relying-party.js';

const API = 'https://reports.example/api';
/** A client whose sign-ins may name an organization. */
const PORTAL = {
  client_id: 'portal',
  client_name: 'Partner Portal',
  client_secret: 'portal-secret-0123456789',
  redirect_uris: ['https://portal.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
  allowed_resources: [API],
};
/** A client whose sign-ins are always for an organization: the person picks one when the request names none. */
const WORKSPACE = {
  ...PORTAL,
  client_id: 'workspace',
  client_name: 'Workspace',
  client_secret: 'workspace-secret-0123456789',
  redirect_uris: ['https://workspace.example/cb'],
};

const server = await listenTestApp(t, {
  seed: {
    ...FIXTURES,
    resource_servers: [{ identifier: API, scopes: { 'reports:read': 'Read your reports' }, access_token_format: 'jwt' }],
    clients: [...FIXTURES.clients, PORTAL, WORKSPACE],
  },
});
const origin = new URL(server.baseUrl).origin;
await server.db.updateTable('clients').set({ organization_usage: 'allow' }).where('client_id', '=', PORTAL.client_id).execute();
await server.db.updateTable('clients').set({ organization_usage: 'require' }).where('client_id', '=', WORKSPACE.client_id).execute();

const admin: AdminContext = {
  config: server.config,
  db: server.db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords: {} as PasswordHasher,
  passwordPolicy: new PasswordPolicy(server.config.passwordPolicy),
};
const acme = await createOrganization(admin, { slug: 'acme', display_name: 'Acme Corporation' });
const globex = await createOrganization(admin, { slug: 'globex', display_name: 'Globex' });
await addOrganizationMember(admin, 'acme', ALICE.username, { roles: ['admin'] });
await addOrganizationMember(admin, 'globex', ALICE.username);

const configFor = (client: typeof PORTAL) =>
  discover(server, client.client_id, oidc.ClientSecretBasic(client.client_secret), client.client_secret);

type Stop = { kind: 'client'; callback: URL } | { kind: 'page'; status: number; body: string };

/**
 * A browser with plain HTTP: signs in as `user`, allows consent, picks `pick` on the organization page, and stops at
 * the client's redirect URI or at the first other page.
 */
async function browse(start: URL, user: { username: string; password: string }, pick?: string, jar = new CookieJar()): Promise<Stop> {
  let url = start;
  let form: Record<string, string> | undefined;
  for (let step = 0; step < 12; step += 1) {
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
    if (response.status !== 200 || !action || !csrf) return { kind: 'page', status: response.status, body };
    url = new URL(decodeEntities(action));
    if (body.includes('type="password"')) form = { csrf: decodeEntities(csrf), login: user.username, password: user.password };
    else if (body.includes('name="organization"')) {
      if (pick === undefined) return { kind: 'page', status: response.status, body };
      form = { csrf: decodeEntities(csrf), organization: pick };
    } else form = { csrf: decodeEntities(csrf), decision: 'allow' };
  }
  throw new Error('too many steps');
}

async function signIn(attempt: Attempt, user = ALICE, pick?: string) {
  const stop = await browse(attempt.authorizationUrl, user, pick);
  if (stop.kind !== 'client') throw new Error(`expected the client, stopped at HTTP ${stop.status}: ${stop.body.slice(0, 300)}`);
  return stop.callback;
}

t.test(
  'org_id and org_name in the ID token and at userinfo, org_roles with its scope; refresh keeps them until the membership goes',
  async (t) => {
    const config = await configFor(PORTAL);
    const attempt = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid org_roles offline_access', { organization: 'acme' });
    const tokens = await redeem(attempt, await signIn(attempt));
    const idToken = tokens.claims()!;
    t.equal(idToken.org_id, acme.id, 'org_id: the organization id');
    t.equal(idToken.org_name, 'acme', 'org_name: its slug');
    t.same(idToken.org_roles, ['member', 'admin'], 'org_roles: the member roles, with the org_roles scope');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
    t.equal(info.org_id, acme.id, 'OIDC Core 5.3.2: at userinfo too');
    t.equal(info.org_name, 'acme');
    t.same(info.org_roles, ['member', 'admin']);

    // RFC 7662 2.2: the introspection response of the access token names the organization.
    const introspected = await oidc.tokenIntrospection(config, tokens.access_token);
    t.equal(introspected.active, true);
    t.equal(introspected.org_id, acme.id, 'RFC 7662 2.2: org_id in the introspection response');
    t.equal(introspected.org_name, 'acme');

    // Refresh (OIDC Core 12.2) keeps the organization.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    t.equal(refreshed.claims()!.org_name, 'acme', 'the refreshed ID token is for the same organization');
    t.equal((await oidc.tokenIntrospection(config, refreshed.refresh_token!)).org_id, acme.id, 'the new refresh token keeps it');

    // Removed from the organization: the grant ends (RFC 6749 5.2 invalid_grant).
    await removeOrganizationMember(admin, 'acme', ALICE.username);
    t.teardown(() => addOrganizationMember(admin, 'acme', ALICE.username, { roles: ['admin'] }));
    const err = await oidc.refreshTokenGrant(config, refreshed.refresh_token!).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof oidc.ResponseBodyError, 'refused');
    t.equal((err as oidc.ResponseBodyError).error, 'invalid_grant');
  },
);

t.test('a sign-in without an organization carries none of its claims', async (t) => {
  const config = await configFor(PORTAL);
  const attempt = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid org_roles');
  const tokens = await redeem(attempt, await signIn(attempt));
  t.notOk('org_id' in tokens.claims()!);
  t.notOk('org_id' in (await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)));
});

t.test('RFC 9068 2.2: a JWT access token for an API carries org_id and org_name', async (t) => {
  const config = await configFor(PORTAL);
  const attempt = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid reports:read', { organization: globex.id, resource: API });
  const tokens = await oidc.authorizationCodeGrant(config, await signIn(attempt), attempt.checks, { resource: API });
  const keys = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
  const { payload } = await jwtVerify(tokens.access_token, keys, { issuer: server.issuer, audience: API, typ: 'at+jwt' });
  t.equal(payload.org_id, globex.id, 'named by its id in the request, the organization is the same');
  t.equal(payload.org_name, 'globex');
  t.notOk('org_roles' in payload, 'org_roles only with its scope');
});

t.test('a person who is not a member is refused on a page, and the client gets no code', async (t) => {
  const config = await configFor(PORTAL);
  const attempt = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid', { organization: 'acme' });
  const stop = await browse(attempt.authorizationUrl, BOB);
  if (stop.kind !== 'page') throw new Error(`expected the refusal page, went to ${stop.callback.href}`);
  t.equal(stop.status, 403);
  t.match(stop.body, 'You are not a member of this organization.');
});

t.test('RFC 6749 4.1.2.1: invalid_request for a client that does not use organizations, and for an unknown one', async (t) => {
  const plain = await discoverConfidential(server);
  const refused = await prepareAttempt(plain, CONFIDENTIAL.redirect_uris[0]!, 'openid', { organization: 'acme' });
  const answer = await browse(refused.authorizationUrl, ALICE);
  if (answer.kind !== 'client') throw new Error(`expected a redirect, got HTTP ${answer.status}`);
  t.equal(answer.callback.searchParams.get('error'), 'invalid_request');
  t.equal(answer.callback.searchParams.get('error_description'), 'the client does not use organizations');
  t.equal(answer.callback.searchParams.get('state'), refused.state);

  const config = await configFor(PORTAL);
  const unknown = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid', { organization: 'no-such-org' });
  const told = await browse(unknown.authorizationUrl, ALICE);
  if (told.kind !== 'client') throw new Error(`expected a redirect, got HTTP ${told.status}`);
  t.equal(told.callback.searchParams.get('error'), 'invalid_request');
  t.equal(told.callback.searchParams.get('error_description'), 'unknown organization');
});

t.test('a require client: a person in two organizations picks one on a page; the tokens are for it', async (t) => {
  const config = await configFor(WORKSPACE);
  const attempt = await prepareAttempt(config, WORKSPACE.redirect_uris[0]!, 'openid');
  const page = await browse(attempt.authorizationUrl, ALICE);
  if (page.kind !== 'page') throw new Error('expected the pick page');
  t.match(page.body, 'Choose an organization');
  t.match(page.body, 'Acme Corporation (acme)');
  t.match(page.body, 'Globex (globex)');
  const again = await prepareAttempt(config, WORKSPACE.redirect_uris[0]!, 'openid');
  const tokens = await redeem(again, await signIn(again, ALICE, globex.id));
  t.equal(tokens.claims()!.org_name, 'globex');
});

t.test('a require client: a person in no organization is told so, with no redirect', async (t) => {
  const config = await configFor(WORKSPACE);
  const attempt = await prepareAttempt(config, WORKSPACE.redirect_uris[0]!, 'openid');
  const stop = await browse(attempt.authorizationUrl, BOB);
  if (stop.kind !== 'page') throw new Error(`expected a page, went to ${stop.callback.href}`);
  t.equal(stop.status, 403);
  t.match(stop.body, 'You are not a member of any organization.');
});

t.test('RFC 9126: a pushed request may name the organization', async (t) => {
  const config = await configFor(PORTAL);
  const attempt = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid');
  const pushedUrl = await oidc.buildAuthorizationUrlWithPAR(config, {
    redirect_uri: PORTAL.redirect_uris[0]!,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: 'S256',
    nonce: attempt.nonce,
    state: attempt.state,
    organization: 'globex',
  });
  const tokens = await redeem({ ...attempt, authorizationUrl: pushedUrl }, await signIn({ ...attempt, authorizationUrl: pushedUrl }));
  t.equal(tokens.claims()!.org_name, 'globex');

  // RFC 9126 2.1: the push is validated as /authorize would: an unknown organization is refused at once.
  const err = await oidc
    .buildAuthorizationUrlWithPAR(config, { redirect_uri: PORTAL.redirect_uris[0]!, scope: 'openid', organization: 'no-such-org' })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  t.ok(err instanceof oidc.ResponseBodyError);
  t.equal((err as oidc.ResponseBodyError).error, 'invalid_request');
});

t.test('OIDC Core 3.1.2.6: prompt=none for an organization, with a session, is interaction_required', async (t) => {
  const config = await configFor(PORTAL);
  const jar = new CookieJar();
  const first = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid', { organization: 'globex' });
  const signedIn = await browse(first.authorizationUrl, ALICE, undefined, jar);
  t.equal(signedIn.kind, 'client', 'signed in once, with a session');
  const silent = await prepareAttempt(config, PORTAL.redirect_uris[0]!, 'openid', { organization: 'globex', prompt: 'none' });
  const answer = await browse(silent.authorizationUrl, ALICE, undefined, jar);
  if (answer.kind !== 'client') throw new Error(`expected a redirect, got HTTP ${answer.status}`);
  t.equal(answer.callback.searchParams.get('error'), 'interaction_required');
  t.equal(answer.callback.searchParams.get('state'), silent.state);
});
