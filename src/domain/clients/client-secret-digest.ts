// Client secrets this server generated (256 random bits) are stored as HMAC-SHA256 digests, not argon2: a slow hash
// adds nothing to a value nobody can guess, and would hand a flood of wrong secrets the CPU that sign-ins need.
//
// The key is derived with HKDF-SHA-256 from KEYS_ENCRYPTION_SECRET, which lives outside the database: a stolen
// clients table then checks no guess offline. Without it the key is a public label, and the digest is as strong as
// SHA-256 of 256 random bits, already beyond guessing. Each digest names its key (a short fingerprint), so a digest
// made before KEYS_ENCRYPTION_SECRET was set keeps verifying after, and one made under another secret is told apart.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** `hmac-sha256$<key id>$<digest>`: the prefix tells this format from argon2's `$argon2id$`. */
const PREFIX = 'hmac-sha256$';
const HKDF_INFO = 'sso-provider client secret digest v1';
const PUBLIC_LABEL = 'sso-provider client secret digest without KEYS_ENCRYPTION_SECRET';

interface DigestKey {
  readonly id: string;
  readonly key: Buffer;
}

function digestKey(material: string): DigestKey {
  const key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), HKDF_INFO, 32));
  // 48 bits of an HMAC of a constant: names the key, reveals nothing of it.
  const id = createHmac('sha256', key).update('key id').digest('base64url').slice(0, 8);
  return { id, key };
}

export class ClientSecretDigests {
  private readonly current: DigestKey;
  private readonly byId: ReadonlyMap<string, DigestKey>;

  /** `serverSecret`: KEYS_ENCRYPTION_SECRET, or undefined for the public label. */
  constructor(serverSecret: string | undefined) {
    const unkeyed = digestKey(PUBLIC_LABEL);
    this.current = serverSecret === undefined ? unkeyed : digestKey(serverSecret);
    this.byId = new Map([unkeyed, this.current].map((k) => [k.id, k]));
  }

  /** True when `stored` is in this module's format (whatever its key); otherwise it is an argon2 hash. */
  static owns(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /** The digest to store for a secret this server generated. */
  digest(secret: string): string {
    return `${PREFIX}${this.current.id}$${mac(this.current.key, secret)}`;
  }

  /** Compares in constant time; false for a digest under a key this process does not hold, or a malformed one. */
  verify(stored: string, presented: string): boolean {
    const [id, expected, ...rest] = stored.slice(PREFIX.length).split('$');
    const key = this.byId.get(id ?? '');
    if (!key || expected === undefined || rest.length > 0) return false;
    const want = Buffer.from(expected, 'base64url');
    const got = Buffer.from(mac(key.key, presented), 'base64url');
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

function mac(key: Buffer, secret: string): string {
  return createHmac('sha256', key).update(secret, 'utf8').digest('base64url');
}
