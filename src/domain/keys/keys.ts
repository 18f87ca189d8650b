// The ID token signing keys as one instance sees them: loaded from the database at start, reloaded every
// KEYS_REFRESH_SECONDS (and on demand), so that a rotation made anywhere reaches every instance without a restart.
// Requests read prebuilt objects swapped on reload; no request queries the database for keys.
import { createLocalJWKSet, importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import type { Config } from '../../config.js';
import type { Db } from '../../storage/database.js';
import type { SigningKeyRow } from '../../storage/schema.js';
import { listSigningKeys } from '../../storage/signing-keys.js';
import type { Clock } from '../clock.js';
import type { KeyCipher } from './key-encryption.js';
import { isPublished, keyTimeline, maySign, type KeyTimes } from './key-lifecycle.js';
import { prepareSigningKeys } from './key-rotation.js';
import { readableKeyRows } from './stored-jwk.js';
import { SIGNING_ALGS, type SigningAlg } from './signing-algs.js';

export { SIGNING_ALGS, type SigningAlg } from './signing-algs.js';

/** How long relying parties may cache the JWKS (its Cache-Control max-age). */
export const JWKS_MAX_AGE_SECONDS = 300;

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: CryptoKey | Uint8Array;
}

export interface KeyStore {
  /** The key that signs for an algorithm now. */
  signer(alg: SigningAlg): SigningKey;
  /** The public JWK Set document as it is now: pending, active and retired keys. */
  readonly jwksJson: string;
  /** The published keys for verifying our own tokens (an id_token_hint), parsed once per JWKS document. */
  readonly verificationKeys: VerificationKeys;
  /** Reloads the keys from the database now (a rotation made by another process). */
  refresh(): Promise<void>;
  /** Stops the periodic reload. */
  close(): void;
}

export interface VerificationKeys {
  keys: ReturnType<typeof createLocalJWKSet>;
  /** The algorithms of the published keys. */
  algorithms: string[];
}

export interface KeyLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A retired key stays published for the ID token lifetime, plus one reload period in which an instance may still sign with it. */
export function keyRetentionSeconds(config: Pick<Config, 'idTokenTtlSeconds' | 'keysRefreshSeconds'>): number {
  return config.idTokenTtlSeconds + config.keysRefreshSeconds;
}

interface Candidate {
  key: SigningKey;
  activatesAt: number;
}

interface Snapshot {
  /** Per algorithm, the keys that sign now or later, by activation. */
  signers: Map<SigningAlg, Candidate[]>;
  /** Every published key, with when it leaves the JWKS. */
  published: Array<{ jwk: Record<string, unknown>; until: number }>;
}

interface JwksDocument {
  json: string;
  /** When a key leaves: the document is rebuilt (in memory) from then on. */
  validUntil: number;
}

function buildJwks(snapshot: Snapshot, now: number): JwksDocument {
  const keys = snapshot.published.filter((p) => now < p.until).map((p) => p.jwk);
  const validUntil = Math.min(...snapshot.published.map((p) => p.until).filter((until) => until > now));
  return { json: JSON.stringify({ keys }), validUntil };
}

class DatabaseKeyStore implements KeyStore {
  private snapshot: Snapshot = { signers: new Map(), published: [] };
  private jwks: JwksDocument = { json: '{"keys":[]}', validUntil: Infinity };
  private verifying: { json: string; keys: VerificationKeys } | undefined;
  private imported = new Map<string, SigningKey>();
  private reloading: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly cipher: KeyCipher,
    private readonly clock: Clock,
    private readonly retentionSeconds: number,
    private readonly logger: KeyLogger,
  ) {}

  signer(alg: SigningAlg): SigningKey {
    const candidates = this.snapshot.signers.get(alg);
    if (!candidates || candidates.length === 0) throw new Error(`no signing key for ${alg}`);
    const now = this.clock().getTime();
    let chosen = candidates[0]!;
    for (const candidate of candidates) if (candidate.activatesAt <= now) chosen = candidate;
    return chosen.key;
  }

  get jwksJson(): string {
    const now = this.clock().getTime();
    if (now >= this.jwks.validUntil) this.jwks = buildJwks(this.snapshot, now);
    return this.jwks.json;
  }

  get verificationKeys(): VerificationKeys {
    const json = this.jwksJson;
    if (this.verifying?.json !== json) {
      const jwks = JSON.parse(json) as JSONWebKeySet;
      const algorithms = [...new Set(jwks.keys.map((k) => k.alg).filter((alg): alg is string => typeof alg === 'string'))];
      this.verifying = { json, keys: { keys: createLocalJWKSet(jwks), algorithms } };
    }
    return this.verifying.keys;
  }

  refresh(): Promise<void> {
    this.reloading ??= this.reload().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  startTimer(seconds: number): void {
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.logger.error({ err }, 'signing keys could not be reloaded; keeping the ones loaded'));
    }, seconds * 1000);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async reload(): Promise<void> {
    await this.apply(await listSigningKeys(this.db));
  }

  /** Imports what may sign (decrypting it once per kid), then swaps the snapshot and the JWKS in one step. */
  async apply(stored: readonly SigningKeyRow[]): Promise<void> {
    // A key row this version does not read (written by a newer one) is left out of the key set, signing and JWKS.
    const rows = readableKeyRows(stored, (kid, reason) =>
      this.logger.warn(
        { event: 'signing_key_unreadable', kid, reason },
        'signing key left out: stored in a shape this version does not read',
      ),
    );
    const now = this.clock();
    const timeline = keyTimeline(rows, this.retentionSeconds);
    const rowByKid = new Map(rows.map((r) => [r.kid, r]));
    const signers = new Map<SigningAlg, Candidate[]>();
    const imported = new Map<string, SigningKey>();
    for (const times of timeline.filter((k) => maySign(k, now) && (SIGNING_ALGS as readonly string[]).includes(k.alg))) {
      const key = this.imported.get(times.kid) ?? (await this.importKey(rowByKid.get(times.kid)!, times));
      imported.set(times.kid, key);
      signers.set(times.alg, [...(signers.get(times.alg) ?? []), { key, activatesAt: times.activatesAt.getTime() }]);
    }
    const order = (alg: string) => (SIGNING_ALGS as readonly string[]).indexOf(alg);
    const published = timeline
      .filter((k) => isPublished(k, now))
      .sort((a, b) => order(a.alg) - order(b.alg) || b.activatesAt.getTime() - a.activatesAt.getTime())
      .map((k) => ({ jwk: rowByKid.get(k.kid)!.public_jwk, until: k.unpublishesAt?.getTime() ?? Infinity }));
    this.snapshot = { signers, published };
    this.jwks = buildJwks(this.snapshot, now.getTime());
    this.imported = imported;
  }

  private async importKey(row: SigningKeyRow, times: KeyTimes): Promise<SigningKey> {
    const jwk: JWK = this.cipher.open(row.kid, row.private_jwk);
    return { kid: row.kid, alg: times.alg, privateKey: await importJWK(jwk, times.alg) };
  }
}

/**
 * Loads the keys at start: generates the first key of each algorithm, encrypts clear keys when a secret is set
 * (or warns that they are clear), and starts the periodic reload, stopped by `close()`.
 */
export async function loadKeyStore(db: Db, config: Config, clock: Clock, logger: KeyLogger): Promise<KeyStore> {
  const prepared = await prepareSigningKeys(db, config.keysEncryptionSecret, clock());
  for (const key of prepared.generated) logger.info({ kid: key.kid, alg: key.alg }, 'signing key generated');
  if (prepared.encrypted > 0)
    logger.info({ count: prepared.encrypted }, 'clear private signing keys encrypted with KEYS_ENCRYPTION_SECRET');
  if (!prepared.cipher.encrypts) {
    logger.warn(
      {},
      'KEYS_ENCRYPTION_SECRET is not set: the private signing keys and the authenticator-app secrets are stored IN THE CLEAR, and anyone who can read the database can sign ID tokens and compute second-factor codes; set it (openssl rand -base64 32) before going live',
    );
  }
  if (config.keyActivationDelaySeconds < config.keysRefreshSeconds + JWKS_MAX_AGE_SECONDS) {
    logger.warn(
      {
        keyActivationDelaySeconds: config.keyActivationDelaySeconds,
        keysRefreshSeconds: config.keysRefreshSeconds,
        jwksMaxAgeSeconds: JWKS_MAX_AGE_SECONDS,
      },
      'KEY_ACTIVATION_DELAY_SECONDS is shorter than KEYS_REFRESH_SECONDS plus the JWKS cache lifetime: a rotated key may sign before every instance publishes it and every relying party has fetched it',
    );
  }
  const store = new DatabaseKeyStore(db, prepared.cipher, clock, keyRetentionSeconds(config), logger);
  await store.apply(prepared.rows);
  store.startTimer(config.keysRefreshSeconds);
  return store;
}
