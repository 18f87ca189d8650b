// Issue 38 (reshape item 5): every JSON column the migrations make is read back through a versioned shape. The
// table below names each column's shapes, and what a row this version does not read comes to; a new json or jsonb
// column without an entry fails the first test. Columns still waiting for a shape are named in PENDING, on purpose.
import { sql } from 'kysely';
import t from 'tap';
import { CHALLENGE_CONTEXT } from '../../src/domain/accounts/challenge-context.js';
import { createOnce } from '../../src/domain/admin/idempotency.js';
import { AdminError } from '../../src/domain/admin-error.js';
import { STORED_CLAIM_MAPPING } from '../../src/domain/connections/connection.js';
import { STORED_SAML_SETTINGS } from '../../src/domain/saml/sp/saml-settings.js';
import { showConnection } from '../../src/domain/connections/connection-admin.js';
import { enabledConnection } from '../../src/domain/connections/connections.js';
import { showDirectory } from '../../src/domain/directories/directory-admin.js';
import { DIRECTORY_SETTINGS, directoryById } from '../../src/domain/directories/directories.js';
import { DirectoryUnavailable } from '../../src/domain/directories/directory-unavailable.js';
import {
  entryFromRow as resourceEntryFromRow,
  resourceServerProblems,
  rowToResourceServer,
  SCOPE_DESCRIPTIONS,
} from '../../src/domain/resources/resource-servers.js';
import { PUSHED_PARAMS } from '../../src/domain/authorization/pushed-params.js';
import { loadClient } from '../../src/domain/clients/clients.js';
import { CLIENT_METADATA } from '../../src/domain/clients/stored-client-metadata.js';
import { STORED_USER_CLAIMS } from '../../src/domain/claims.js';
import { STORED_CLAIMS_REQUEST } from '../../src/domain/tokens/claims-request.js';
import { STORED_PRIVATE_JWK, STORED_PUBLIC_JWK } from '../../src/domain/keys/stored-jwk.js';
import { STORED_INTERACTION } from '../../src/domain/authorization/stored-interaction.js';
import { KeyEncryptionError } from '../../src/domain/keys/key-encryption.js';
import { openSecret } from '../../src/domain/keys/sealed-secrets.js';
import { EVENT_DATA } from '../../src/domain/webhooks/event-data.js';
import { listAuditRecords } from '../../src/storage/audit-records.js';
import { upsertConnectionRow } from '../../src/storage/connections.js';
import { upsertDirectory } from '../../src/storage/directories.js';
import {
  FREE_FORM,
  object,
  readOnly,
  readVersioned,
  string,
  writeFreeForm,
  writeVersioned,
  type VersionedShapes,
} from '../../src/storage/json-shape.js';
import { claimDueMessages, insertOutboxMessage } from '../../src/storage/outbox.js';
import { findResourceServers, upsertResourceServer } from '../../src/storage/resource-servers.js';
import { SEALED_SECRET, writeSealedSecret } from '../../src/storage/sealed-secret.js';
import { createSignup, verifySignup } from '../../src/storage/signups.js';
import { STORED_SP_ATTRIBUTES } from '../../src/domain/saml/idp/service-providers.js';
import { STORED_BRANDING, STORED_POLICIES } from '../../src/domain/organizations/organization-settings.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

interface Family {
  shapes: VersionedShapes<unknown>;
  /** What becomes of a row this version does not read. */
  refused: string;
  /** A value the newest version reads. */
  fits: unknown;
  /** Values it must refuse: another version, a wrong shape. */
  misfits: unknown[];
}

const SEALED: Family = {
  shapes: SEALED_SECRET,
  refused: 'the secret counts as one that does not open (KeyEncryptionError, answered by each caller)',
  fits: { v: 1, iv: 'aXY', tag: 'dGFn', ciphertext: 'Yw' },
  misfits: [{ v: 2, iv: 'aXY', tag: 'dGFn', ciphertext: 'Yw' }, { v: 1, iv: 'aXY' }, { v: 0, clear: 7 }, { iv: 'aXY' }, 'text', []],
};

const FREE: Family = {
  shapes: FREE_FORM,
  refused: 'a listing shows { unreadable: why }; the outbox leaves the message to an instance that reads it',
  fits: { any: 'field' },
  misfits: [{ v: 2, any: 'field' }, { v: 'one' }, ['not', 'an', 'object'], 'text'],
};

const interaction = {
  request: {
    clientId: 'c',
    redirectUri: 'https://rp.example/cb',
    redirectUriInRequest: true,
    scopes: ['openid'],
    state: null,
    nonce: null,
    codeChallenge: null,
    prompts: [],
    maxAge: null,
    loginHint: null,
    responseMode: 'query',
    idTokenHint: null,
  },
  minAuthTime: null,
  forceConsent: false,
};

/** Every json or jsonb column, `table.column`, and its family. */
const SHAPED: Record<string, Family> = {
  'interactions.request': {
    shapes: STORED_INTERACTION,
    refused: 'the sign-in starts again as after an expiry (test/storage/stored-state.test.ts)',
    fits: interaction,
    misfits: [{ ...interaction, v: 2 }, { ...interaction, forceConsent: 'no' }, { request: {} }],
  },
  'second_factor_challenges.context': {
    shapes: CHALLENGE_CONTEXT,
    refused: 'the challenge counts as expired (test/storage/stored-state.test.ts)',
    fits: undefined,
    misfits: [{ v: 2 }, { v: 1 }, 'text'],
  },
  'webhook_deliveries.payload': {
    shapes: EVENT_DATA,
    refused: 'the delivery is left to an instance that reads it (src/domain/webhooks/deliver.ts)',
    fits: { userId: 'u' },
    misfits: [{ v: 2, userId: 'u' }, 'text'],
  },
  'pushed_authorization_requests.params': {
    shapes: PUSHED_PARAMS,
    refused: 'the request_uri is invalid_request_uri, used up (test/http/authorization/par.test.ts)',
    fits: { client_id: 'c', scope: 'openid', resource: ['https://a.example', 'https://b.example'] },
    misfits: [{ v: 2, client_id: 'c' }, { client_id: 7 }, { resource: ['https://a.example', 1] }, ['field'], 'text'],
  },
  'clients.metadata': {
    shapes: CLIENT_METADATA,
    refused: 'the client is treated as unknown, and why is logged (below)',
    fits: { scope: 'openid api', jwks: { keys: [] }, allowed_resources: ['https://api.example'], free: { any: 'field' } },
    misfits: [
      { v: 2, scope: 'openid' },
      { scope: ['openid'] },
      { require_mfa: 'yes' },
      { jwks: { keys: 'none' } },
      { id_token_signed_response_alg: 'HS256' },
      { allowed_resources: ['https://api.example', 7] },
      'text',
    ],
  },
  'users.claims': {
    shapes: STORED_USER_CLAIMS,
    refused: 'none of the stored claims is released, and why is logged (test/http/tokens/userinfo.test.ts)',
    fits: { name: 'Alice', groups: ['a'], address: { locality: 'x' } },
    misfits: [{ v: 2, name: 'Alice' }, { v: 'one' }, ['field'], 'text'],
  },
  'totp_authenticators.secret': SEALED,
  'clients.client_secret_sealed': SEALED,
  'connections.client_secret_sealed': SEALED,
  'upstream_logins.verifier_sealed': SEALED,
  'directories.bind_password_sealed': SEALED,
  'connection_links.tokens_sealed': SEALED,
  'connection_link_proofs.tokens_sealed': SEALED,
  'webhook_subscriptions.secret_sealed': SEALED,
  'admin_audit_records.changes': FREE,
  'security_events.details': FREE,
  'outbox.payload': FREE,
  'signups.claims': {
    ...FREE,
    refused: 'the sign-up is left unspent, for an instance that reads it, and logged (src/storage/signups.ts)',
    fits: { name: 'N' },
  },
  'admin_idempotency_keys.response': {
    ...FREE,
    refused: 'the record is treated as absent: 409, retry; never replayed half-read nor run twice',
    fits: { client_id: 'c' },
  },
  'resource_servers.scope_descriptions': {
    shapes: SCOPE_DESCRIPTIONS,
    refused: 'each scope is described by its name; resources show says why',
    fits: { 'read:x': 'Read x' },
    misfits: [{ v: 2, 'read:x': 'Read x' }, { 'read:x': 5 }, { v: 'scope named v' }, ['read:x'], 'text'],
  },
  'connections.claim_mapping': {
    shapes: STORED_CLAIM_MAPPING,
    refused: 'the connection is unusable: left out of sign-ins (logged), connections show says why',
    fits: { email: 'mail', subject: 'id' },
    misfits: [{ v: 2, email: 'mail' }, { email: '' }, { groups: 5 }, ['email'], 'text'],
  },
  'connections.saml': {
    shapes: STORED_SAML_SETTINGS,
    refused: 'the saml connection is unusable: left out of sign-ins (logged), connections show says why',
    fits: {
      v: 1,
      idpEntityId: 'https://idp.example',
      ssoUrl: 'https://idp.example/sso',
      ssoBinding: 'redirect',
      sloUrl: null,
      signingCertificates: ['PEM'],
      metadataXml: '<md:EntityDescriptor/>',
      metadataUrl: null,
      metadataRefreshedAt: null,
      allowUnsolicited: false,
      attributes: {},
    },
    misfits: [{ v: 2, idpEntityId: 'x' }, { v: 1, idpEntityId: 'x' }, ['x'], 'text'],
  },
  'directories.settings': {
    shapes: DIRECTORY_SETTINGS,
    refused: 'the directory cannot answer a sign-in (503, logged); directories show and list refuse it, saying why',
    fits: { url: 'ldaps://ldap.example' },
    misfits: [{ v: 2, url: 'ldaps://ldap.example' }, ['url'], 'text'],
  },
};

SHAPED['signing_keys.private_jwk'] = {
  shapes: STORED_PRIVATE_JWK,
  refused: 'the key is left out of the key set (logged with its kid); none usable for an algorithm: "no signing key"',
  fits: { v: 1, iv: 'aXY', tag: 'dGFn', ciphertext: 'Yw' },
  misfits: [
    { v: 2, iv: 'aXY', tag: 'dGFn', ciphertext: 'Yw' },
    { v: 1, iv: 'aXY' },
    { kty: 'OKP', crv: 'Ed25519', x: 'eA' },
    { kty: 7, d: 'ZA' },
    ['field'],
    'text',
  ],
};
SHAPED['signing_keys.public_jwk'] = {
  shapes: STORED_PUBLIC_JWK,
  refused: 'the key is left out of the key set, JWKS and signing alike (logged with its kid)',
  fits: { kty: 'OKP', crv: 'Ed25519', x: 'eA', kid: 'k', alg: 'EdDSA', use: 'sig' },
  misfits: [{ v: 2, kty: 'OKP', kid: 'k' }, { kid: 'k' }, { kty: 'OKP' }, ['field'], 'text'],
};

SHAPED['saml_keys.private_key'] = {
  ...SEALED,
  refused: 'the SAML key does not open (KeyEncryptionError): the identity provider cannot sign or publish metadata until it does',
};
SHAPED['saml_service_providers.attributes'] = {
  shapes: STORED_SP_ATTRIBUTES,
  refused: 'the service provider is unusable: saml-sps show and list say why; a sign-in to it gets an error page',
  fits: { v: 1, list: [{ name: 'email', from: 'email' }] },
  misfits: [{ v: 2, list: [] }, { list: [{ name: 'x', from: 'password_hash' }] }, { list: 'email' }, ['field'], 'text'],
};

SHAPED['organizations.branding'] = {
  shapes: STORED_BRANDING,
  refused: 'the organization is unusable: organizations show says why; a sign-in for it is refused, never run without its policies',
  fits: { v: 1, logo_url: 'https://acme.example/logo.png', primary_color: '#aa0000', background_color: null },
  misfits: [{ v: 2, logo_url: null }, { logo_url: 42, primary_color: null, background_color: null }, ['logo_url'], 'text'],
};
SHAPED['organizations.policies'] = {
  shapes: STORED_POLICIES,
  refused: 'the organization is unusable: organizations show says why; a sign-in for it is refused, never run without its policies',
  fits: {
    v: 1,
    require_second_factor: true,
    sign_in_methods: ['password'],
    enforce_connection: false,
    session_lifetime_seconds: null,
    join: 'domain',
  },
  misfits: [
    { v: 2, require_second_factor: true },
    { require_second_factor: 'yes', sign_in_methods: [], enforce_connection: false, session_lifetime_seconds: null, join: 'domain' },
    { require_second_factor: true, sign_in_methods: ['magic'], enforce_connection: false, session_lifetime_seconds: null, join: 'domain' },
    'text',
  ],
};

/** Columns read without a shape: none, and none may be added (a new JSON column comes with its shapes). */
const PENDING: Record<string, string> = {};

const CLAIMS_REQUEST: Family = {
  shapes: STORED_CLAIMS_REQUEST,
  refused: 'no requested claim is released (as if no claims parameter was given), and why is logged; never a 500',
  fits: { id_token: { email: null }, userinfo: { name: { essential: true } } },
  misfits: [{ v: 2, userinfo: { name: null } }, { userinfo: ['name'] }, { id_token: 'email' }, ['userinfo'], 'text'],
};

/** Text columns that hold JSON (information_schema cannot tell them apart): each named here with its shapes. */
const SHAPED_TEXT: Record<string, Family> = {
  'authorization_codes.claims': CLAIMS_REQUEST,
  'access_tokens.claims': CLAIMS_REQUEST,
  'refresh_tokens.claims': CLAIMS_REQUEST,
};

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;

t.test('every json and jsonb column the migrations make has a shape (or is named as waiting for one)', async (t) => {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name || '.' || column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type IN ('json', 'jsonb') ORDER BY 1`.execute(db);
  const columns = rows.map((r) => r.name);
  t.ok(columns.length >= 20, 'the catalogue lists the JSON columns');
  const known = new Set([...Object.keys(SHAPED), ...Object.keys(PENDING)]);
  t.same(
    columns.filter((c) => !known.has(c)),
    [],
    'no JSON column without an entry',
  );
  t.same(
    [...known].filter((c) => !columns.includes(c)),
    [],
    'no entry for a column that does not exist',
  );
  t.same(PENDING, {}, 'no column waits for a shape');
  t.same(
    Object.keys(SHAPED).filter((c) => c in PENDING),
    [],
    'no column both shaped and waiting',
  );
});

t.test('every text column named as holding JSON exists and is text', async (t) => {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name || '.' || column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type = 'text' ORDER BY 1`.execute(db);
  const columns = new Set(rows.map((r) => r.name));
  t.same(
    Object.keys(SHAPED_TEXT).filter((c) => !columns.has(c)),
    [],
    'no entry for a text column that does not exist',
  );
});

for (const [column, family] of [...Object.entries(SHAPED), ...Object.entries(SHAPED_TEXT)]) {
  t.test(`${column}: another version or a wrong shape is refused (${family.refused})`, async (t) => {
    if (family.fits !== undefined) t.ok(readVersioned(family.fits, family.shapes).ok, 'the newest version reads');
    for (const misfit of family.misfits) {
      const read = readVersioned(misfit, family.shapes);
      t.equal(read.ok, false, `refused: ${JSON.stringify(misfit)}`);
      if (!read.ok) t.notMatch(read.reason, /aXY|dGFn|field/, 'the reason names a path or version, never a value');
    }
  });
}

t.test('a sealed secret stored in a version this one does not read does not open, and says why', async (t) => {
  const ctx = { db, clock: () => new Date(), config: testConfig() };
  await sql`CREATE TEMP TABLE sealed_probe (secret jsonb NOT NULL)`.execute(db);
  await sql`INSERT INTO sealed_probe VALUES (${writeSealedSecret({ v: 0, clear: 'c2VjcmV0' })}), ('{"v":2,"clear":"c2VjcmV0"}')`.execute(
    db,
  );
  const { rows } = await sql<{ secret: unknown }>`SELECT secret FROM sealed_probe ORDER BY secret->>'v'`.execute(db);
  t.equal((await openSecret(ctx, 'webhook-secret', 'owner', rows[0]!.secret)).toString(), 'secret', 'version 0 opens');
  await t.rejects(openSecret(ctx, 'webhook-secret', 'owner', rows[1]!.secret), KeyEncryptionError);
  await t.rejects(openSecret(ctx, 'webhook-secret', 'owner', rows[1]!.secret), /does not read \(unknown version 2\)/);
  await sql`DROP TABLE sealed_probe`.execute(db);
  t.throws(() => writeSealedSecret({ v: 1, iv: 'x' } as never), 'what could not be read back is not written');
});

t.test('a client whose metadata this version does not read is unknown, and the log says why without a value', async (t) => {
  const warnings: object[] = [];
  const log = { info: () => undefined, warn: (obj: object) => void warnings.push(obj) };
  const now = new Date();
  const columns = {
    redirect_uris: ['https://rp.example/cb'],
    post_logout_redirect_uris: [],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'none',
    created_at: now,
    updated_at: now,
  };
  await db
    .insertInto('clients')
    .values([
      { client_id: 'shape-fits', ...columns, metadata: JSON.stringify({ scope: 'openid' }) },
      { client_id: 'shape-newer', ...columns, metadata: JSON.stringify({ v: 2, scope: 'openid' }) },
      { client_id: 'shape-misfit', ...columns, metadata: JSON.stringify({ require_mfa: 'secret-looking-value' }) },
    ] as never)
    .execute();
  t.equal((await loadClient(db, log, 'shape-fits'))?.registeredScope, 'openid');
  t.equal(await loadClient(db, log, 'shape-newer'), undefined, 'another version: unknown');
  t.equal(await loadClient(db, log, 'shape-misfit'), undefined, 'a field that does not fit: unknown');
  t.match(warnings, [
    { event: 'client_unreadable', clientId: 'shape-newer', reason: 'unknown version 2' },
    { event: 'client_unreadable', clientId: 'shape-misfit', reason: 'unexpected value at $.metadata.require_mfa' },
  ]);
  t.notMatch(JSON.stringify(warnings), /secret-looking-value/);
});

t.test('an audit record whose changes are of an unknown version is still listed, marked unreadable', async (t) => {
  await sql`INSERT INTO admin_audit_records (occurred_at, actor_kind, actor_id, origin, event, target_type, target_id, changes)
            VALUES (now(), 'token', 'shapes-test', null, 'client.updated', 'client', 'c1', '{"v":2,"name":"x"}'),
                   (now(), 'token', 'shapes-test', null, 'client.updated', 'client', 'c2', '{"name":"y"}')`.execute(db);
  const listed = await listAuditRecords(db, { actorId: 'shapes-test' }, 10);
  t.same(
    listed.map((r) => [r.target_id, r.changes]),
    [
      ['c2', { name: 'y' }],
      ['c1', { unreadable: 'unknown version 2' }],
    ],
  );
});

t.test('an outbox message of an unknown payload version is left for an instance that reads it', async (t) => {
  const now = new Date();
  await insertOutboxMessage(db, { userId: null, address: 'a@example.com', kind: 'invitation', payload: { link: 'l' }, createdAt: now });
  await sql`INSERT INTO outbox (user_id, address, kind, payload, created_at, next_attempt_at)
            VALUES (null, 'b@example.com', 'invitation', '{"v":2,"link":"l"}', ${now}, ${now})`.execute(db);
  const claimed = await claimDueMessages(db, new Date(now.getTime() + 1000), new Date(now.getTime() + 60_000), 10);
  t.same(
    claimed.map((m) => [m.address, m.payload]),
    [['a@example.com', { link: 'l' }]],
  );
  t.throws(() => writeFreeForm({ v: 3 }), 'a free-form value may not name a version of its own');
});

const log = {
  warned: [] as unknown[],
  warn(fields: unknown) {
    this.warned.push(fields);
  },
};
const admin = { db, clock: () => new Date(), config: testConfig(), log } as never;

t.test('a connection whose claim mapping is of an unknown version is unusable, logged and shown with why', async (t) => {
  await upsertConnectionRow(
    db,
    {
      id: 'shapes-conn',
      display_name: 'Shapes',
      icon: null,
      kind: 'oidc',
      preset: null,
      issuer: 'https://idp.example',
      authorization_endpoint: null,
      token_endpoint: null,
      userinfo_endpoint: null,
      client_id: 'c',
      client_secret_sealed: null,
      scopes: ['openid'],
      claim_mapping: { email: 'mail' },
      provisioning: 'create',
      email_domains: [],
      trust_amr: false,
      store_tokens: false,
      enabled: true,
    },
    new Date(),
  );
  t.equal((await enabledConnection(admin, 'shapes-conn'))?.mapping.email, 'mail', 'version 1 (no v) is read');
  await sql`UPDATE connections SET claim_mapping = '{"v":2,"email":"mail"}' WHERE id = 'shapes-conn'`.execute(db);
  t.equal(await enabledConnection(admin, 'shapes-conn'), undefined, 'left out of sign-ins');
  t.match(log.warned.at(-1), { connection: 'shapes-conn', column: /unknown version 2/ }, 'logged with the reason');
  await t.rejects(showConnection(admin, 'shapes-conn'), { name: 'AdminError', message: /stored unreadably \(.*unknown version 2\)/ });
});

t.test('a resource server whose scope descriptions are of an unknown version describes scopes by name and says why', async (t) => {
  const values = {
    name: null,
    scopes: ['read:x'],
    scope_descriptions: { 'read:x': 'Read x' },
    token_format: 'opaque' as const,
    access_token_ttl_seconds: 600,
    signing_alg: 'RS256',
    introspecting_clients: [],
  };
  await upsertResourceServer(db, 'https://api.shapes.example', values, new Date());
  const [fits] = await findResourceServers(db, ['https://api.shapes.example']);
  t.same(rowToResourceServer(fits!).scopes, [{ name: 'read:x', description: 'Read x' }], 'version 1 (no v) is read');
  await sql`UPDATE resource_servers SET scope_descriptions = '{"v":2,"read:x":"Read x"}' WHERE identifier = 'https://api.shapes.example'`.execute(
    db,
  );
  const [misfit] = await findResourceServers(db, ['https://api.shapes.example']);
  t.same(rowToResourceServer(misfit!).scopes, [{ name: 'read:x', description: 'read:x' }], 'the consent page names the scope');
  t.equal(resourceEntryFromRow(misfit!).scope_descriptions_unreadable, 'unknown version 2', 'resources show says why');
  t.match(
    resourceServerProblems({ identifier: 'https://api.shapes.example', scopes: { v: 'Read' } }),
    [/scope "v" is reserved/],
    'no scope is named v: its description would be read as a version',
  );
});

t.test('a directory whose settings are of an unknown version cannot answer, and the admin is told why', async (t) => {
  await upsertDirectory(
    db,
    'shapes-dir',
    { display_name: 'Shapes', position: 1, enabled: true, settings: {}, bind_password_sealed: { v: 0, clear: 'cHc' } },
    new Date(),
  );
  await sql`UPDATE directories SET settings = '{"v":2}' WHERE id = 'shapes-dir'`.execute(db);
  const unavailable = await directoryById(admin, 'shapes-dir').catch((err: unknown) => err);
  t.ok(unavailable instanceof DirectoryUnavailable, 'a sign-in is answered 503, not 500');
  t.match(unavailable, { directoryId: 'shapes-dir', errorClass: /unknown version 2/ }, 'logged with the reason');
  t.ok((await showDirectory(admin, 'shapes-dir').catch((err: unknown) => err)) instanceof AdminError, 'the admin is refused');
  await t.rejects(showDirectory(admin, 'shapes-dir'), { kind: 'conflict', message: /settings that are not valid \(unknown version 2\)/ });
  await sql`DELETE FROM directories WHERE id = 'shapes-dir'`.execute(db);
});

t.test('an idempotency record whose answer is of an unknown version is treated as absent, and the create not run again', async (t) => {
  let runs = 0;
  const create = () => {
    runs += 1;
    return Promise.resolve({ status: 201, body: { client_id: 'c' } });
  };
  const ctx = { db, clock: () => new Date() };
  t.match(await createOnce(ctx, 'shapes-owner', 'k1', 'h', create), { kind: 'ran' });
  t.match(await createOnce(ctx, 'shapes-owner', 'k1', 'h', create), { kind: 'replayed', body: { client_id: 'c' } }, 'version 1 replays');
  await sql`UPDATE admin_idempotency_keys SET response = '{"v":2,"client_id":"c"}' WHERE principal = 'shapes-owner'`.execute(db);
  t.same(await createOnce(ctx, 'shapes-owner', 'k1', 'h', create), { kind: 'in-use', claimed: false, unreadable: 'unknown version 2' });
  t.equal(runs, 1, 'the create ran once');
});

t.test('a sign-up whose claims are of an unknown version is left unspent until an instance reads it', async (t) => {
  const now = new Date();
  const signup = {
    id: '00000000-0000-4000-8000-00000000a038',
    tokenDigest: 'shapes-token-digest',
    codeDigest: 'shapes-code-digest',
    email: 'shapes-signup@example.com',
    username: 'shapes-signup',
    passwordHash: 'x',
    claims: { name: 'Shapes' },
    interactionId: null,
    now,
    expiresAt: new Date(now.getTime() + 600_000),
    verification: { url: 'u', code: '000000' },
  };
  await createSignup(db, signup);
  await sql`UPDATE signups SET claims = '{"v":2,"name":"Shapes"}' WHERE id = ${signup.id}`.execute(db);
  t.same(await verifySignup(db, signup.tokenDigest, now), { kind: 'unreadable', reason: 'unknown version 2' });
  await sql`UPDATE signups SET claims = '{"v":1,"name":"Shapes"}' WHERE id = ${signup.id}`.execute(db);
  const verified = await verifySignup(db, signup.tokenDigest, now);
  t.match(verified, { kind: 'created' }, 'still usable, and read by an instance that knows its version');
  const { rows } = await sql<{ claims: unknown }>`SELECT claims FROM users WHERE username = 'shapes-signup'`.execute(db);
  t.same(rows[0]?.claims, { name: 'Shapes' }, 'the user has the claims, without the version');
  t.same(await verifySignup(db, signup.tokenDigest, now), { kind: 'unusable' }, 'spent');
});

t.test('a version marked read-only is read but not written yet (the first release of a raised version)', async (t) => {
  const v1 = object<{ name: string }>({ name: string });
  const shapes: VersionedShapes<{ name: string }> = { 1: v1, 2: readOnly(v1) };
  t.same(JSON.parse(writeVersioned({ name: 'n' }, shapes)), { v: 1, name: 'n' }, 'written at version 1');
  t.ok(readVersioned({ v: 2, name: 'n' }, shapes).ok, 'version 2 read');
  t.same(JSON.parse(writeVersioned({ name: 'n' }, { 1: v1, 2: v1 })), { v: 2, name: 'n' }, 'unmarked, version 2 written');
});
