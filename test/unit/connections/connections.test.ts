// The rules of upstream connections that need no server (issue 19): the seed entries, the presets, which connection
// a hint names, how upstream claims map (only a boolean true verifies an address), Microsoft's tenant-dependent
// issuer, and the discovery document's issuer check.
import t from 'tap';
import { parseSeed, SeedError } from '../../../src/domain/admin/seed.js';
import { rowToConnection, type Connection } from '../../../src/domain/connections/connection.js';
import { hintedConnection } from '../../../src/domain/connections/connections.js';
import { PRESET_DEFAULTS } from '../../../src/domain/connections/presets.js';
import { metadataFromDiscovery } from '../../../src/domain/connections/upstream-directory.js';
import { UpstreamRefusal } from '../../../src/domain/connections/upstream-errors.js';
import { identityFromClaims } from '../../../src/domain/connections/upstream-identity.js';
import { issuerMatches } from '../../../src/domain/connections/upstream-login.js';
import type { ConnectionRow } from '../../../src/storage/schema.js';

const problems = (connections: unknown): string[] => {
  try {
    parseSeed({ connections });
    return [];
  } catch (err) {
    if (err instanceof SeedError) return err.problems;
    throw err;
  }
};

function row(overrides: Partial<ConnectionRow> = {}): ConnectionRow {
  const now = new Date();
  return {
    id: 'corp',
    display_name: 'Corp',
    icon: null,
    kind: 'oidc',
    preset: null,
    issuer: 'https://idp.example',
    authorization_endpoint: null,
    token_endpoint: null,
    userinfo_endpoint: null,
    client_id: 'sso',
    client_secret_sealed: null,
    scopes: ['openid', 'email'],
    claim_mapping: {},
    provisioning: 'create',
    email_domains: ['corp.example'],
    trust_amr: false,
    store_tokens: false,
    enabled: true,
    saml: null,
    organization_id: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

function connection(overrides: Partial<ConnectionRow> = {}): Connection {
  const mapped = rowToConnection(row(overrides));
  if ('problem' in mapped) throw new Error(mapped.problem);
  return mapped.connection;
}

t.test('seed entries: every problem is named, with its index and field', async (t) => {
  t.same(problems([{ id: 'google', preset: 'google', client_id: 'x', client_secret: 's' }]), [], 'a preset needs only its client');
  t.same(problems([{ id: 'Bad Id', kind: 'oauth2', client_id: '' }]), [
    'connections[0]: id must be 1 to 63 lowercase letters, digits, "-" or "_"',
    'connections[0]: authorization_endpoint is required for an oauth2 connection',
    'connections[0]: token_endpoint is required for an oauth2 connection',
    'connections[0]: userinfo_endpoint is required for an oauth2 connection',
    'connections[0]: client_id must be a non-empty string',
    'connections[0]: display_name is required without a preset',
  ]);
  t.match(problems([{ id: 'x', preset: 'google', client_id: 'x', provisioning: 'anyone' }]), [
    'connections[0]: provisioning must be create, link or refuse',
  ]);
  t.match(problems([{ id: 'x', preset: 'google', client_id: 'x', issuer: 'http://idp.example' }]), [
    /issuer must use https \(http only on loopback\)/,
  ]);
  t.same(
    problems([{ id: 'x', preset: 'google', client_id: 'x', issuer: 'http://127.0.0.1:9000' }]),
    [],
    'http on loopback (a development upstream)',
  );
  t.match(problems([{ id: 'x', preset: 'github', client_id: 'x', tenant: 'common' }]), [/tenant is for the microsoft preset/]);
  t.match(problems([{ id: 'x', preset: 'google', client_id: 'x', claims: { mail: 'email' } }]), [/claims: unknown field "mail"/]);
  t.match(
    problems([
      { id: 'x', preset: 'google', client_id: 'x' },
      { id: 'x', preset: 'gitlab', client_id: 'y' },
    ]),
    ['connection "x" appears more than once'],
  );
  t.match(problems({}), ['"connections" must be an array']);
});

t.test("presets fill a row's endpoints, scopes and claims; the row's own values win", async (t) => {
  const github = connection({ kind: 'oauth2', preset: 'github', issuer: null, scopes: PRESET_DEFAULTS.github.scopes });
  t.equal(github.authorizationEndpoint, 'https://github.com/login/oauth/authorize');
  t.equal(github.userinfoEndpoint, 'https://api.github.com/user');
  t.equal(github.mapping.subject, 'id', 'GitHub accounts are known by their numeric id');
  t.match(github.icon, /^data:image\/svg\+xml;base64,/, 'a built-in icon');
  const overridden = connection({ kind: 'oauth2', preset: 'github', issuer: null, userinfo_endpoint: 'http://127.0.0.1:1/user' });
  t.equal(overridden.userinfoEndpoint, 'http://127.0.0.1:1/user', 'the base URL can be overridden (a stand-in, GitHub Enterprise)');
  t.equal(connection({ preset: 'google', issuer: null }).issuer, 'https://accounts.google.com');
  t.equal(connection({ preset: 'gitlab', issuer: null }).mapping.username, 'nickname');
  t.match(rowToConnection(row({ claim_mapping: { email: 5 } as unknown as Record<string, unknown> })), { problem: /claim_mapping\.email/ });
});

t.test('idp_hint names a connection; a login_hint address in its domains picks it (OIDC Core 3.1.2.1)', async (t) => {
  const all = [connection(), connection({ id: 'other', email_domains: [] })];
  t.equal(hintedConnection(all, { idpHint: 'other', loginHint: null })?.id, 'other');
  t.equal(hintedConnection(all, { idpHint: 'missing', loginHint: 'a@corp.example' }), undefined, 'an unknown idp_hint picks nothing');
  t.equal(hintedConnection(all, { loginHint: 'Someone@CORP.example' })?.id, 'corp', 'domains compare without case');
  t.equal(hintedConnection(all, { loginHint: 'someone@elsewhere.example' }), undefined);
  t.equal(hintedConnection(all, { loginHint: 'alice' }), undefined, 'a username is no address');
});

t.test('claims map to an identity; only a boolean true from the upstream verifies an address', async (t) => {
  const c = connection();
  t.match(identityFromClaims(c, { sub: 'u1', email: 'a@corp.example', email_verified: true, groups: ['ops', 7] }, { fromIdToken: true }), {
    subject: 'u1',
    email: 'a@corp.example',
    emailVerified: true,
    groups: ['ops'],
  });
  t.equal(
    identityFromClaims(c, { sub: 'u1', email: 'a@corp.example', email_verified: 'true' }, { fromIdToken: true }).emailVerified,
    false,
  );
  t.equal(identityFromClaims(c, { sub: 'u1', email: 'not an address' }, { fromIdToken: true }).email, null);
  t.throws(() => identityFromClaims(c, { email: 'a@corp.example' }, { fromIdToken: true }), UpstreamRefusal, 'no subject, no account');
  const github = connection({ kind: 'oauth2', preset: 'github', issuer: null });
  t.equal(identityFromClaims(github, { id: 583231, login: 'octocat' }, { fromIdToken: false }).subject, '583231');
});

t.test("Microsoft's multi-tenant issuer: the {tenantid} template filled with the token's tid, nothing else", async (t) => {
  const template = 'https://login.microsoftonline.com/{tenantid}/v2.0';
  const tid = '9188040d-6c67-4c5b-b112-36a304b66dad';
  t.ok(issuerMatches(template, `https://login.microsoftonline.com/${tid}/v2.0`, tid));
  t.notOk(issuerMatches(template, `https://login.microsoftonline.com/${tid}/v2.0`, '72f988bf-86f1-41af-91ab-2d7cd011db47'), 'another tid');
  t.notOk(issuerMatches(template, 'https://evil.example/x/v2.0', tid));
  t.ok(issuerMatches('https://idp.example', 'https://idp.example'));
  t.notOk(issuerMatches('https://idp.example', 'https://idp.example/'), 'exact comparison (OIDC Discovery 4.3)');
});

t.test('discovery: the issuer must be the one asked (OIDC Discovery 4.3), but for the Microsoft preset template', async (t) => {
  const doc = (issuer: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
  });
  t.throws(() => metadataFromDiscovery(connection(), doc('https://impostor.example')), UpstreamRefusal);
  t.match(metadataFromDiscovery(connection(), doc('https://idp.example')), {
    tokenAuth: 'client_secret_basic',
    idTokenAlgs: ['RS256'],
    issParameterSupported: false,
  });
  const algs = metadataFromDiscovery(connection(), {
    ...doc('https://idp.example'),
    id_token_signing_alg_values_supported: ['none', 'HS256', 'ES256'],
  });
  t.same(algs.idTokenAlgs, ['ES256'], 'none and HMAC are never accepted for an upstream ID token');
  const microsoft = connection({ preset: 'microsoft', issuer: 'https://login.microsoftonline.com/common/v2.0' });
  t.equal(
    metadataFromDiscovery(microsoft, doc('https://login.microsoftonline.com/{tenantid}/v2.0')).issuer,
    'https://login.microsoftonline.com/{tenantid}/v2.0',
  );
  t.throws(
    () => metadataFromDiscovery(connection(), doc('https://login.microsoftonline.com/{tenantid}/v2.0')),
    UpstreamRefusal,
    'only for the preset',
  );
});
