// The SAML signing keys of the provider as an identity provider: made on first use, sealed at rest under
// KEYS_ENCRYPTION_SECRET, a self-signed RSA 2048 / SHA-256 certificate, rotated with the overlap of the ID token keys.
import { createPrivateKey, createPublicKey, sign, verify, X509Certificate } from 'node:crypto';
import t, { type Test } from 'tap';
import { KeyEncryptionError } from '../../src/domain/keys/key-encryption.js';
import { keyRetentionSeconds } from '../../src/domain/keys/keys.js';
import { describeSamlKeys, rotateSamlKeys, StoredSamlCredentials, type SamlKeyContext } from '../../src/domain/keys/saml-keys.js';
import { listSamlKeys } from '../../src/storage/saml-keys.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const SECRET = 'kes-0123456789-abcdefghij-KLMNOPQRSTUV';
const OTHER_SECRET = 'another-secret-0123456789-abcdefghijkl';

const shared = await createTestDatabase();
t.teardown(() => shared.drop());

interface Setup {
  ctx: SamlKeyContext;
  advance(seconds: number): void;
}

/** The file's one database, emptied of SAML keys and salt; a clock that moves only when told. */
async function setup(_t: Test, secret: string | null = SECRET): Promise<Setup> {
  const db = shared.handle.db;
  await db.deleteFrom('saml_keys').execute();
  await db.deleteFrom('key_encryption').execute();
  let now = Date.parse('2026-12-07T12:00:00Z');
  const config = testConfig({ KEYS_ENCRYPTION_SECRET: secret ?? '' });
  return { ctx: { db, clock: () => new Date(now), config }, advance: (s) => (now += s * 1000) };
}

t.test('the first use makes one key pair whose certificate is a self-signed RSA 2048 SHA-256 one of its private key', async (t) => {
  const { ctx } = await setup(t);
  const credentials = new StoredSamlCredentials(ctx);
  const pair = await credentials.signing();
  const certificate = new X509Certificate(pair.certificatePem);
  t.equal(certificate.publicKey.asymmetricKeyType, 'rsa');
  t.equal(certificate.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
  t.ok(certificate.verify(certificate.publicKey), 'self-signed');
  t.match(certificate.subject, /CN=/);
  t.ok(certificate.checkPrivateKey(createPrivateKey(pair.privateKeyPem)), 'the private key is the certificate’s');
  const signature = sign('sha256', Buffer.from('x'), pair.privateKeyPem);
  t.ok(verify('sha256', Buffer.from('x'), createPublicKey(pair.certificatePem), signature));
  t.same(await credentials.published(), [pair.certificatePem]);
  t.equal((await listSamlKeys(ctx.db)).length, 1, 'a second use makes no other key');
  t.same(
    (await credentials.decryption()).map((p) => p.certificatePem),
    [pair.certificatePem],
  );
});

t.test('two instances using the keys at once for the first time agree on one key', async (t) => {
  const { ctx } = await setup(t);
  const [a, b] = await Promise.all([new StoredSamlCredentials(ctx).signing(), new StoredSamlCredentials(ctx).signing()]);
  t.equal(a.certificatePem, b.certificatePem);
  t.equal((await listSamlKeys(ctx.db)).length, 1);
});

t.test('the private key is stored sealed under KEYS_ENCRYPTION_SECRET, never as a PEM', async (t) => {
  const { ctx } = await setup(t);
  await new StoredSamlCredentials(ctx).signing();
  const [row] = await listSamlKeys(ctx.db);
  const stored = JSON.stringify(row!.private_key);
  t.match(row!.private_key, { v: 1 });
  t.notMatch(stored, /PRIVATE KEY/);
  const [described] = await describeSamlKeys(ctx);
  t.equal(described!.encrypted, true);
});

t.test('a wrong KEYS_ENCRYPTION_SECRET does not open the stored key and is refused by name', async (t) => {
  const { ctx } = await setup(t);
  await new StoredSamlCredentials(ctx).signing();
  const wrong = { ...ctx, config: testConfig({ KEYS_ENCRYPTION_SECRET: OTHER_SECRET }) };
  await t.rejects(new StoredSamlCredentials(wrong).signing(), KeyEncryptionError);
  await t.rejects(new StoredSamlCredentials(wrong).signing(), { message: /does not decrypt a SAML signing key/ });
});

t.test('without KEYS_ENCRYPTION_SECRET the key is kept in the clear and marked so', async (t) => {
  const { ctx } = await setup(t, null);
  await new StoredSamlCredentials(ctx).signing();
  const [row] = await listSamlKeys(ctx.db);
  t.match(row!.private_key, { v: 0 });
  t.equal((await describeSamlKeys(ctx))[0]!.encrypted, false);
});

t.test('a rotated key is published before it signs, signs from its activation, and the old one leaves after the retention', async (t) => {
  const { ctx, advance } = await setup(t);
  const credentials = new StoredSamlCredentials(ctx);
  const old = await credentials.signing();
  const rotated = await rotateSamlKeys(ctx, { activationDelaySeconds: 600 });
  const next = (await listSamlKeys(ctx.db)).find((r) => r.id === rotated.id)!;

  t.equal((await credentials.signing()).certificatePem, old.certificatePem, 'the old key signs until the new one activates');
  t.same(await credentials.published(), [old.certificatePem, next.certificate_pem], 'both are published during the overlap');
  t.same(
    (await describeSamlKeys(ctx)).map((k) => k.state),
    ['active', 'pending'],
  );

  advance(600);
  t.equal((await credentials.signing()).certificatePem, next.certificate_pem, 'the new key signs once active');
  t.same(await credentials.published(), [next.certificate_pem, old.certificatePem], 'the retired key stays published');
  t.same(
    (await credentials.decryption()).map((p) => p.certificatePem),
    [next.certificate_pem, old.certificatePem],
    'an assertion encrypted for either key still opens, the current first',
  );

  advance(keyRetentionSeconds(ctx.config));
  t.same(await credentials.published(), [next.certificate_pem], 'the retired key leaves once expired');
  t.same(
    (await describeSamlKeys(ctx)).map((k) => k.state),
    ['expired', 'active'],
  );
});

t.test('a rotation refuses a delay that is not a whole number of seconds', async (t) => {
  const { ctx } = await setup(t);
  await t.rejects(rotateSamlKeys(ctx, { activationDelaySeconds: -1 }), RangeError);
  await t.rejects(rotateSamlKeys(ctx, { activationDelaySeconds: 1.5 }), RangeError);
});
