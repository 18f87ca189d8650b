// The SAML signing key pairs of the provider as an identity provider (issue 39): an RSA key with a self-signed
// certificate, sealed at rest (sealed-secrets.ts) and rotated on the timeline of the ID token keys (key-lifecycle.ts):
// a new key is published at once and signs from its activation; the one before stays published until it expires.
import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import type { Config } from '../../config.js';
import type { SamlKeyRow } from '../../storage/schema.js';
import { insertSamlKey, listSamlKeys, withSamlKeysLock } from '../../storage/saml-keys.js';
import type { Db } from '../../storage/database.js';
import { addSeconds } from '../clock.js';
import { isPublished, keyState, keyTimeline, maySign, type KeyState, type KeyTimes } from './key-lifecycle.js';
import { keyRetentionSeconds } from './keys.js';
import { openSecret, sealSecret, type SealingContext } from './sealed-secrets.js';
import type { SamlCredentials, SamlKeyPair } from '../saml/credentials.js';

/** RSA 2048 with SHA-256 (SAML signatures are RSA-SHA256: xmldsig-more#rsa-sha256). */
const KEY_ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };

/** Service providers pin the certificate, not its dates; ten years keeps an old SP from refusing an expired one. */
const CERTIFICATE_YEARS = 10;

/** The timeline's grouping name: the SAML keys are one series. */
const SERIES = 'saml';

type SelfSignedParams = Parameters<typeof X509.X509CertificateGenerator.createSelfSigned>[0];

/**
 * @peculiar/x509 (with the reflect-metadata it needs) is loaded when a key is first made, not at start-up: about
 * 3 MiB of heap that every request's garbage collection would otherwise walk, for a step taken once a rotation.
 */
let x509Module: Promise<typeof X509> | undefined;
function loadX509(): Promise<typeof X509> {
  x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return x509Module;
}

export interface GeneratedSamlKey {
  id: string;
  privateKeyPem: string;
  certificatePem: string;
}

/** The certificate's SHA-256 thumbprint, hex: the key's id. */
export function certificateThumbprint(certificatePem: string): string {
  return createHash('sha256').update(new X509Certificate(certificatePem).raw).digest('hex');
}

/** A fresh RSA key pair and its self-signed certificate, named after the issuer's host. */
export async function generateSamlKey(issuer: string, now: Date): Promise<GeneratedSamlKey> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERTIFICATE_YEARS);
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)));
  serial[0] = serial[0]! & 0x7f; // RFC 5280 4.1.2.2: a positive integer
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial.toString('hex'),
      name: `CN=${new URL(issuer).hostname}`,
      notBefore: now,
      notAfter,
      keys: keys as SelfSignedParams['keys'],
      signingAlgorithm: KEY_ALGORITHM,
      extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
    },
    webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1],
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKeyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END PRIVATE KEY-----\n`;
  const certificatePem = certificate.toString('pem');
  return { id: certificateThumbprint(certificatePem), privateKeyPem, certificatePem };
}

export type SamlKeyConfig = Pick<Config, 'issuer' | 'keysEncryptionSecret' | 'idTokenTtlSeconds' | 'keysRefreshSeconds'>;

/** What the SAML keys need: the database and clock, the issuer and the secret that seals them. */
export interface SamlKeyContext extends SealingContext {
  readonly config: SamlKeyConfig;
}

function timeline(rows: readonly SamlKeyRow[], config: SamlKeyConfig): KeyTimes[] {
  const times = keyTimeline(
    rows.map((r) => ({ kid: r.id, alg: SERIES, created_at: r.created_at, activates_at: r.activates_at })),
    keyRetentionSeconds(config),
  );
  return times.sort((a, b) => a.activatesAt.getTime() - b.activatesAt.getTime());
}

/** The rows, with a first key made (active at once: nothing can have cached metadata without one) when there is none. */
async function ensureKeys(ctx: SamlKeyContext): Promise<SamlKeyRow[]> {
  const rows = await listSamlKeys(ctx.db);
  if (rows.length > 0) return rows;
  const now = ctx.clock();
  const key = await generateSamlKey(ctx.config.issuer, now);
  // Sealed before the lock is taken: sealing reads the salt, and on the embedded database the lock's transaction
  // holds the one connection.
  const privateKey = await sealSecret(ctx, 'saml-key', key.id, Buffer.from(key.privateKeyPem, 'utf8'));
  return withSamlKeysLock(ctx.db, async (trx) => {
    const again = await listSamlKeys(trx);
    if (again.length > 0) return again;
    await insertSamlKey(trx, { id: key.id, privateKey, certificatePem: key.certificatePem, createdAt: now, activatesAt: now });
    return listSamlKeys(trx);
  });
}

/**
 * The SamlCredentials of this database: the keys are read at each use (SAML is not a hot path, and a rotation made
 * by any instance or `sso-admin` is seen at once); a private key is opened once per process.
 */
export class StoredSamlCredentials implements SamlCredentials {
  private readonly opened = new Map<string, Promise<string>>();

  constructor(private readonly ctx: SamlKeyContext) {}

  async signing(): Promise<SamlKeyPair> {
    const { rows, times } = await this.load();
    const now = this.ctx.clock();
    const active = times.filter((k) => k.activatesAt.getTime() <= now.getTime() && maySign(k, now)).at(-1);
    if (!active) throw new Error('no SAML signing key is active');
    return this.pair(rows, active.kid);
  }

  async published(): Promise<string[]> {
    const { rows, times } = await this.load();
    const now = this.ctx.clock();
    const signing = (await this.signing()).certificatePem;
    const others = times
      .filter((k) => isPublished(k, now))
      .map((k) => rows.find((r) => r.id === k.kid)!.certificate_pem)
      .filter((pem) => pem !== signing);
    return [signing, ...others];
  }

  async decryption(): Promise<SamlKeyPair[]> {
    const { rows, times } = await this.load();
    const now = this.ctx.clock();
    const signing = await this.signing();
    const others = times.filter((k) => isPublished(k, now) && rows.find((r) => r.id === k.kid)!.certificate_pem !== signing.certificatePem);
    return [signing, ...(await Promise.all(others.map((k) => this.pair(rows, k.kid))))];
  }

  private async load(): Promise<{ rows: SamlKeyRow[]; times: KeyTimes[] }> {
    const rows = await ensureKeys(this.ctx);
    return { rows, times: timeline(rows, this.ctx.config) };
  }

  private async pair(rows: readonly SamlKeyRow[], id: string): Promise<SamlKeyPair> {
    const row = rows.find((r) => r.id === id)!;
    let privateKeyPem = this.opened.get(id);
    if (!privateKeyPem) {
      privateKeyPem = openSecret(this.ctx, 'saml-key', id, row.private_key).then((b) => b.toString('utf8'));
      this.opened.set(id, privateKeyPem);
      privateKeyPem.catch(() => this.opened.delete(id));
    }
    return { privateKeyPem: await privateKeyPem, certificatePem: row.certificate_pem };
  }
}

export interface RotatedSamlKey {
  id: string;
  activatesAt: Date;
}

/** Adds a new SAML key, published now and signing after `activationDelaySeconds`; the current one retires then. */
export async function rotateSamlKeys(
  ctx: SamlKeyContext,
  options: { activationDelaySeconds: number; record?: (trx: Db, rotated: RotatedSamlKey) => Promise<void> },
): Promise<RotatedSamlKey> {
  if (!Number.isInteger(options.activationDelaySeconds) || options.activationDelaySeconds < 0) {
    throw new RangeError('activationDelaySeconds must be a whole number of seconds, 0 or more');
  }
  await ensureKeys(ctx);
  const now = ctx.clock();
  const key = await generateSamlKey(ctx.config.issuer, now);
  const privateKey = await sealSecret(ctx, 'saml-key', key.id, Buffer.from(key.privateKeyPem, 'utf8'));
  const activatesAt = addSeconds(now, options.activationDelaySeconds);
  return withSamlKeysLock(ctx.db, async (trx) => {
    await insertSamlKey(trx, { id: key.id, privateKey, certificatePem: key.certificatePem, createdAt: now, activatesAt });
    const rotated = { id: key.id, activatesAt };
    await options.record?.(trx, rotated);
    return rotated;
  });
}

export interface DescribedSamlKey {
  id: string;
  state: KeyState;
  createdAt: Date;
  activatesAt: Date;
  retiresAt: Date | null;
  unpublishesAt: Date | null;
  /** False when kept in the clear (no KEYS_ENCRYPTION_SECRET). */
  encrypted: boolean;
}

/** Every stored SAML key with its state now, by activation. */
export async function describeSamlKeys(ctx: SamlKeyContext): Promise<DescribedSamlKey[]> {
  const rows = await listSamlKeys(ctx.db);
  const now = ctx.clock();
  return timeline(rows, ctx.config).map((k) => ({
    id: k.kid,
    state: keyState(k, now),
    createdAt: k.createdAt,
    activatesAt: k.activatesAt,
    retiresAt: k.retiresAt,
    unpublishesAt: k.unpublishesAt,
    encrypted: (rows.find((r) => r.id === k.kid)!.private_key as { v?: unknown }).v === 1,
  }));
}
