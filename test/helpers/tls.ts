// A throwaway self-signed certificate for test servers on 127.0.0.1, made with openssl at test time (no key is
// kept in the repository); the certificate is its own CA, handed to the app as an extra trusted certificate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificate {
  cert: string;
  key: string;
}

/** A certificate valid for the given DNS names (and 127.0.0.1), with its private key. */
export function testCertificate(names: readonly string[]): TestCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'sso-tls-'));
  try {
    const san = [...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', `/CN=${names[0]}`].concat([
        '-addext',
        `subjectAltName=${san}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), key: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
