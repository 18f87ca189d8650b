// A self-signed RSA key and X.509 certificate (PEM) for the SAML peers of the tests: SAML metadata and XML signatures
// expect RSA, so tls.ts's P-256 certificate does not serve. Made with the openssl command line at test time (no key is
// kept in the repository), once per name and process: a 2048-bit key costs openssl a noticeable part of a second.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RsaCertificate {
  /** PKCS#8 private key, PEM. */
  key: string;
  /** Self-signed X.509 certificate, PEM. */
  cert: string;
  /** The certificate's DER in base64 on one line: what <ds:X509Certificate> holds in SAML metadata. */
  certBase64: string;
}

const made = new Map<string, RsaCertificate>();

/** The bare base64 of a PEM certificate, as SAML metadata carries it. */
export function pemBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}

/**
 * A 2048-bit RSA key and a certificate for `commonName`, valid for two days; the same pair for the same name within
 * a process. Tests that need two different keys ask for two names.
 */
export function rsaCertificate(commonName = 'saml-test'): RsaCertificate {
  if (!/^[\w.-]+$/.test(commonName)) throw new Error(`rsaCertificate: a plain name, not ${JSON.stringify(commonName)}`);
  const known = made.get(commonName);
  if (known) return known;
  const dir = mkdtempSync(path.join(tmpdir(), 'sso-rsa-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-sha256',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${commonName}`,
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(certFile, 'utf8');
    const pair = { key: readFileSync(keyFile, 'utf8'), cert, certBase64: pemBody(cert) };
    made.set(commonName, pair);
    return pair;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
