// Proof Key for Code Exchange (RFC 7636), S256 only: "plain" offers no protection against a stolen code.
import { hash } from 'node:crypto';

// RFC 7636 4.1: code-verifier = 43*128unreserved.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
// RFC 7636 4.2: for S256 the challenge is BASE64URL(SHA256(verifier)), 43 characters without padding.
const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export function isValidS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

export function isValidVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) (RFC 7636 4.6). */
export function s256(verifier: string): string {
  // A valid verifier is ASCII, so its UTF-8 bytes (what crypto.hash digests) are its ASCII bytes.
  return hash('sha256', verifier, 'base64url');
}
