// Issue 16, structural weakness 3: pending interactions and second-factor challenges are stored as versioned JSON
// and checked when read back, because during a rolling restart one version of the code reads what another wrote.
// A row in the older shape (no `v`) is read; a row with a wrong field type or an unknown newer version is refused,
// and the person starts again as after an expiry (never a 500), with one log line that holds no secret.
import t from 'tap';
import type { ProviderContext } from '../../src/domain/context.js';
import { InteractionError, loadInteraction } from '../../src/domain/authorization/authorize.js';
import { answerSecondFactor } from '../../src/domain/accounts/second-factor.js';
import { randomToken, sha256 } from '../../src/domain/secrets.js';
import { findInteraction } from '../../src/storage/interactions.js';
import { STORED_INTERACTION } from '../../src/domain/authorization/stored-interaction.js';
import { checkChallengeCode, lockLiveTotpChallenge } from '../../src/storage/second-factor-challenges.js';
import { CHALLENGE_CONTEXT } from '../../src/domain/accounts/challenge-context.js';
import { CONFIDENTIAL } from '../helpers/app.js';
import { seededTestDatabase } from '../helpers/seeded-database.js';

const { config, db, aliceId: userId } = await seededTestDatabase(t);

const warnings: { obj: object; msg: string }[] = [];
const log = { info: () => undefined, warn: (obj: object, msg: string) => void warnings.push({ obj, msg }) };
const ctx = { config, db, clock: () => new Date(), log } as unknown as ProviderContext;

const hour = () => new Date(Date.now() + 3_600_000);

/** The request as the code before versions wrote it: the same fields, no `v`. */
const unversionedInteraction = () => ({
  request: {
    clientId: CONFIDENTIAL.client_id,
    redirectUri: 'https://rp.example/cb',
    redirectUriInRequest: true,
    scopes: ['openid', 'email'],
    state: 'st',
    nonce: null,
    codeChallenge: null,
    prompts: ['login'],
    maxAge: null,
    loginHint: null,
    responseMode: 'query',
    idTokenHint: null,
  },
  minAuthTime: 1_700_000_000_000,
  forceConsent: false,
});

async function storeInteraction(request: unknown): Promise<{ id: string; binding: string }> {
  const id = randomToken(16);
  const binding = randomToken();
  await db
    .insertInto('interactions')
    .values({
      id,
      binding_hash: sha256(binding),
      client_id: CONFIDENTIAL.client_id,
      request: JSON.stringify(request),
      created_at: new Date(),
      expires_at: hour(),
    })
    .execute();
  return { id, binding };
}

t.test('an interaction stored without a version is read as version 1', async (t) => {
  const { id, binding } = await storeInteraction(unversionedInteraction());
  const found = await findInteraction(db, STORED_INTERACTION, id);
  t.ok(found?.readable);
  const interaction = await loadInteraction(ctx, id, binding);
  t.same(interaction.request.scopes, ['openid', 'email']);
  t.same(interaction.request.prompts, ['login']);
  t.equal(interaction.minAuthTime, 1_700_000_000_000);
  t.equal(interaction.forceConsent, false);
});

t.test('an interaction with a field of the wrong type is refused as expired and logged once', async (t) => {
  const stored = unversionedInteraction();
  const { id, binding } = await storeInteraction({ ...stored, request: { ...stored.request, scopes: 'openid email' } });
  const found = await findInteraction(db, STORED_INTERACTION, id);
  t.equal(found?.readable, false);
  warnings.length = 0;
  await t.rejects(loadInteraction(ctx, id, binding), InteractionError);
  t.equal(warnings.length, 1);
  t.match(warnings[0], { obj: { reason: /\.request\.scopes/ }, msg: /unreadable/ });
  t.notMatch(JSON.stringify(warnings), binding, 'the binding secret is not logged');
});

t.test('an interaction written by a newer version of the code is refused as expired', async (t) => {
  const { id, binding } = await storeInteraction({ ...unversionedInteraction(), v: 2 });
  await t.rejects(loadInteraction(ctx, id, binding), InteractionError);
});

t.test('an unknown enumerated value (a scope this version does not know) is refused', async (t) => {
  const stored = unversionedInteraction();
  const { id } = await storeInteraction({ v: 1, ...stored, request: { ...stored.request, scopes: ['openid', 'payments'] } });
  t.equal((await findInteraction(db, STORED_INTERACTION, id))?.readable, false);
});

/** The sign-in context as the code before versions wrote it: the same fields, no `v`. */
const unversionedContext = () => ({
  device: {
    cookieHash: null,
    fingerprint: 'coarse.fine',
    networkKey: 'net',
    deviceKey: 'f:dev',
    label: 'Firefox on Linux',
    automation: false,
    hintsMismatch: false,
  },
  verdict: {
    action: 'CHALLENGE',
    score: 60,
    reasons: ['NEW_DEVICE'],
    device: { id: null, label: 'Firefox on Linux', known: false, trusted: false },
  },
  attemptId: '00000000-0000-4000-8000-000000000000',
  throttleClaim: { kind: 'claimed', accountKey: 'account:alice', accountCount: 1, address: { key: 'ip:127.0.0', count: 1 } },
  returnTo: '/sso/interaction/abc',
  clientId: CONFIDENTIAL.client_id,
});

async function storeChallenge(context: unknown, method: 'otp' | 'totp'): Promise<{ challengeId: string; idHash: string }> {
  const challengeId = randomToken();
  const idHash = sha256(challengeId);
  await db
    .insertInto('second_factor_challenges')
    .values({
      id_hash: idHash,
      user_id: userId,
      method,
      code_hash: method === 'otp' ? 'right-digest' : null,
      context: JSON.stringify(context),
      created_at: new Date(),
      expires_at: hour(),
    })
    .execute();
  return { challengeId, idHash };
}

t.test('a challenge stored without a version is read as version 1', async (t) => {
  const { idHash } = await storeChallenge(unversionedContext(), 'otp');
  const check = await checkChallengeCode(db, CHALLENGE_CONTEXT, idHash, 'right-digest', new Date(), 5);
  t.equal(check.kind, 'verified');
  if (check.kind === 'verified') t.same(check.context, unversionedContext());
  const totp = await storeChallenge(unversionedContext(), 'totp');
  const locked = await db.transaction().execute((trx) => lockLiveTotpChallenge(trx, CHALLENGE_CONTEXT, totp.idHash, new Date(), 5));
  t.same(locked?.context, unversionedContext());
});

t.test('a challenge with a field of the wrong type is refused', async (t) => {
  const context = unversionedContext();
  const { idHash } = await storeChallenge({ ...context, verdict: { ...context.verdict, score: '60' } }, 'otp');
  const check = await checkChallengeCode(db, CHALLENGE_CONTEXT, idHash, 'right-digest', new Date(), 5);
  t.match(check, { kind: 'unreadable', reason: /\.verdict\.score/ });
  t.equal((await checkChallengeCode(db, CHALLENGE_CONTEXT, idHash, 'right-digest', new Date(), 5)).kind, 'dead', 'and it is used up');
});

t.test('a challenge written by a newer version ends the sign-in as expired, logged once, never a 500', async (t) => {
  const { challengeId, idHash } = await storeChallenge({ ...unversionedContext(), v: 2 }, 'totp');
  warnings.length = 0;
  const answer = await answerSecondFactor(ctx, challengeId, '123456');
  t.same(answer, { kind: 'dead' });
  t.equal(warnings.length, 1);
  t.match(warnings[0], { obj: { reason: /unknown version 2/ }, msg: /unreadable/ });
  t.notMatch(JSON.stringify(warnings), challengeId, 'the challenge id (a secret) is not logged');
  const locked = await db.transaction().execute((trx) => lockLiveTotpChallenge(trx, CHALLENGE_CONTEXT, idHash, new Date(), 5));
  t.equal(locked, undefined, 'the challenge is used up: the person signs in again');
});
