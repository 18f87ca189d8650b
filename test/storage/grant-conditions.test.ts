// A grant's table of conditions is both the statement's check and the refusal's explanation
// (src/storage/grant-statement.ts): a code that fails exactly one condition is not redeemed, nothing is issued from it,
// and the refusal names that condition. RFC 6749 4.1.3 (client, redirect_uri), 4.1.2 (single use), RFC 7636 4.6 and
// RFC 9700 2.1.1 (PKCE), RFC 9449 10 (dpop_jkt), RFC 8707 2.2 (resources), RFC 6749 6 (refresh: client, scope).
import t from 'tap';
import { randomToken, sha256 } from '../../src/domain/secrets.js';
import { s256 } from '../../src/domain/authorization/pkce.js';
import { CODE_CONDITIONS, insertCode, redeemCode, type NewCode, type Redemption } from '../../src/storage/authorization-codes.js';
import { rotateRefreshToken, type Rotation } from '../../src/storage/refresh-tokens.js';
import { insertSession } from '../../src/storage/sessions.js';
import { CONFIDENTIAL } from '../helpers/app.js';
import { seededTestDatabase } from '../helpers/seeded-database.js';

const { db, aliceId: userId } = await seededTestDatabase(t);
const now = new Date();
const later = (ms: number) => new Date(now.getTime() + ms);
const sid = randomToken(16);
await insertSession(db, {
  idHash: sha256(randomToken()),
  sid,
  userId,
  authTime: now,
  createdAt: now,
  expiresAt: later(3_600_000),
  deviceId: null,
  amr: ['pwd'],
  acr: null,
});
const clientId = CONFIDENTIAL.client_id;
const revision = (await db.selectFrom('clients').select('revision').where('client_id', '=', clientId).executeTakeFirstOrThrow()).revision;
const redirectUri = CONFIDENTIAL.redirect_uris[0]!;
const verifier = 'v'.repeat(43);

async function newCode(change: Partial<NewCode> = {}): Promise<string> {
  const codeHash = sha256(randomToken());
  await insertCode(db, {
    codeHash,
    clientId,
    redirectUri,
    redirectUriInRequest: true,
    scope: 'openid offline_access',
    nonce: null,
    codeChallenge: s256(verifier),
    issuedAt: now,
    expiresAt: later(60_000),
    resources: [],
    claims: null,
    dpopJkt: null,
    ...change,
    userId,
    authTime: now,
    sid,
    amr: ['pwd'],
    acr: null,
  });
  return codeHash;
}

/** The values of the access token a grant's statement stores (src/storage/access-token-target.ts). */
function accessTokenValues(at: Partial<Redemption['accessToken']> = {}): Redemption['accessToken'] {
  return {
    atResource: null,
    atDefaultResource: null,
    atOpaqueHash: sha256(randomToken()),
    atJwtHash: sha256(randomToken()),
    atDefaultExpiresAt: later(600_000),
    atJkt: null,
    ...at,
  };
}

function redemption(codeHash: string, change: Partial<Redemption> = {}, at: Partial<Redemption['accessToken']> = {}): Redemption {
  return {
    codeHash,
    clientId,
    clientRevision: revision,
    redirectUri,
    challengeOfVerifier: s256(verifier),
    now,
    accessToken: accessTokenValues(at),
    resources: false,
    refreshToken: {
      tokenHash: sha256(randomToken()),
      familyId: crypto.randomUUID(),
      expiresAt: later(86_400_000),
      onlyWithScope: 'offline_access',
      jkt: null,
    },
    ...change,
  };
}

const issuedFrom = async (codeHash: string) =>
  (await db.selectFrom('access_tokens').select('token_hash').where('code_hash', '=', codeHash).execute()).length;

/** Each case breaks one condition of CODE_CONDITIONS and nothing else. */
const codeCases: { condition: string; code?: Partial<NewCode>; request?: Partial<Redemption>; at?: Partial<Redemption['accessToken']> }[] =
  [
    { condition: 'client', request: { clientId: 'another-client' } },
    { condition: 'unexpired', request: { now: later(120_000) } },
    { condition: 'redirect_uri', request: { redirectUri: 'https://elsewhere.example/cb' } },
    { condition: 'redirect_uri', code: { redirectUriInRequest: true }, request: { redirectUri: null } },
    { condition: 'verifier_sent', request: { challengeOfVerifier: null } },
    { condition: 'challenge_made', code: { codeChallenge: null } },
    { condition: 'verifier_matches', request: { challengeOfVerifier: s256('w'.repeat(43)) } },
    { condition: 'dpop_key', code: { dpopJkt: 'a'.repeat(43) } },
    { condition: 'dpop_key', code: { dpopJkt: 'a'.repeat(43) }, at: { atJkt: 'b'.repeat(43) } },
    { condition: 'resource_granted', code: { resources: ['https://a.example/api'] }, at: { atResource: 'https://b.example/api' } },
    { condition: 'resource_named', code: { resources: ['https://a.example/api', 'https://b.example/api'] } },
    { condition: 'audience_known', code: { resources: ['https://unregistered.example/api'] } },
    { condition: 'client_unchanged', request: { clientRevision: revision + 1 } },
  ];

t.test('every condition of the code table is checked by the statement and named by the refusal', async (t) => {
  const named = new Set(codeCases.map((c) => c.condition));
  const untested = CODE_CONDITIONS.map((c) => c.name).filter((name) => !named.has(name) && name !== 'unused' && name !== 'user_enabled');
  t.same(untested, [], 'a case for each condition');
  for (const c of codeCases) {
    const codeHash = await newCode(c.code);
    const taken = await redeemCode(db, redemption(codeHash, c.request, c.at));
    t.equal(taken.refused, c.condition, `${c.condition}: ${JSON.stringify({ ...c.code, ...c.request, ...c.at })}`);
    t.equal(await issuedFrom(codeHash), 0, `${c.condition}: nothing issued`);
    const consumed = await db
      .selectFrom('authorization_codes')
      .select('consumed_at')
      .where('code_hash', '=', codeHash)
      .executeTakeFirstOrThrow();
    t.equal(consumed.consumed_at, null, `${c.condition}: the code is still unused`);
  }
});

t.test('a code that meets every condition is redeemed once; the second time the refusal is unused', async (t) => {
  const codeHash = await newCode();
  const first = await redeemCode(db, redemption(codeHash));
  t.ok(first.row, 'redeemed');
  t.equal(first.row?.refresh_family_id !== null, true, 'a refresh token with offline_access');
  t.equal(await issuedFrom(codeHash), 1);
  const again = await redeemCode(db, redemption(codeHash));
  t.equal(again.refused, 'unused');
  t.equal(await issuedFrom(codeHash), 1, 'nothing more issued');
});

t.test('a code of an unknown digest is refused as unknown', async (t) => {
  t.equal((await redeemCode(db, redemption(sha256(randomToken())))).refused, 'unknown');
});

t.test("a disabled user's code is refused as user_enabled, and an enabled one's after that is not", async (t) => {
  const codeHash = await newCode();
  await db.updateTable('users').set({ disabled_at: now }).where('id', '=', userId).execute();
  t.teardown(() => db.updateTable('users').set({ disabled_at: null }).where('id', '=', userId).execute());
  t.equal((await redeemCode(db, redemption(codeHash))).refused, 'user_enabled');
  await db.updateTable('users').set({ disabled_at: null }).where('id', '=', userId).execute();
  t.ok((await redeemCode(db, redemption(codeHash))).row, 'redeemed once the user is enabled again');
});

async function newRefreshToken(): Promise<{ tokenHash: string }> {
  const codeHash = await newCode();
  const r = redemption(codeHash);
  const taken = await redeemCode(db, r);
  if (!taken.row) throw new Error(`setup: ${taken.refused}`);
  return { tokenHash: r.refreshToken!.tokenHash };
}

function rotation(tokenHash: string, change: Partial<Rotation> = {}): Rotation {
  return {
    tokenHash,
    clientId,
    clientRevision: revision,
    now,
    scope: null,
    next: { tokenHash: sha256(randomToken()), expiresAt: later(86_400_000) },
    accessToken: accessTokenValues(),
    resources: false,
    ...change,
  };
}

t.test('the refresh table: each condition broken alone is the one named, and nothing is rotated', async (t) => {
  const cases: { condition: string; change: Partial<Rotation> }[] = [
    { condition: 'client', change: { clientId: 'another-client' } },
    { condition: 'unexpired', change: { now: later(2 * 86_400_000) } },
    { condition: 'scope_granted', change: { scope: ['openid', 'email'] } },
    { condition: 'client_unchanged', change: { clientRevision: revision + 1 } },
  ];
  for (const c of cases) {
    const { tokenHash } = await newRefreshToken();
    t.equal((await rotateRefreshToken(db, rotation(tokenHash, c.change))).refused, c.condition, c.condition);
    const row = await db.selectFrom('refresh_tokens').select('rotated_at').where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
    t.equal(row.rotated_at, null, `${c.condition}: not rotated`);
  }
  const { tokenHash } = await newRefreshToken();
  t.ok((await rotateRefreshToken(db, rotation(tokenHash, { scope: ['openid'] }))).row, 'a narrower scope is rotated');
  t.equal((await rotateRefreshToken(db, rotation(tokenHash))).refused, 'unrotated', 'a rotated token presented again');
});
