// A software authenticator for app.inject tests: makes the attestations and assertions a browser would post (WebAuthn
// L3 §6.1 authenticator data, §6.5 a `none` attestation, §6.3.3 an ES256 assertion signature), so that every
// server-side check runs against real signatures. Test-only: the provider verifies through @simplewebauthn/server.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

interface OptionsJson {
  challenge: string;
  user?: { id: string };
}

export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  /** The counter the authenticator reports; by default one more than the last. */
  signCount?: number;
  challenge?: string;
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16).toString('base64url');
  private readonly key: { publicKey: KeyObject; privateKey: KeyObject } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  signCount = 0;
  userHandle: string | undefined;

  constructor(
    readonly origin = 'http://localhost:3000',
    readonly rpId = 'localhost',
    readonly options: { userVerified?: boolean; backedUp?: boolean; countsSignatures?: boolean } = {},
  ) {}

  private flags(extra: number): number {
    const backup = this.options.backedUp ? BE | BS : 0;
    return UP | (this.options.userVerified === false ? 0 : UV) | backup | extra;
  }

  private cosePublicKey(): Uint8Array {
    const jwk = this.key.publicKey.export({ format: 'jwk' });
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
  }

  private authData(rpId: string, flags: number, count: number, attested: boolean): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(count);
    const parts = [createHash('sha256').update(rpId).digest(), Buffer.from([flags]), counter];
    if (attested) {
      const id = Buffer.from(this.credentialId, 'base64url');
      const length = Buffer.alloc(2);
      length.writeUInt16BE(id.length);
      parts.push(Buffer.alloc(16), length, id, Buffer.from(this.cosePublicKey()));
    }
    return Buffer.concat(parts);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create() answered: a `none` attestation of a new credential. */
  register(options: OptionsJson, overrides: CeremonyOverrides = {}) {
    this.userHandle = options.user?.id;
    const authData = this.authData(overrides.rpId ?? this.rpId, this.flags(AT), 0, true);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    const clientDataJSON = this.clientData('webauthn.create', overrides.challenge ?? options.challenge, overrides.origin ?? this.origin);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get() answered: an assertion signed with the credential's private key. */
  assert(options: OptionsJson, overrides: CeremonyOverrides = {}) {
    const count = overrides.signCount ?? (this.options.countsSignatures === false ? 0 : this.signCount + 1);
    this.signCount = count;
    const authData = this.authData(overrides.rpId ?? this.rpId, this.flags(0), count, false);
    const clientDataJSON = this.clientData('webauthn.get', overrides.challenge ?? options.challenge, overrides.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]), this.key.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }
}
