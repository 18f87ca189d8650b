// The FAPI 2.0 Security Profile (final, 2025) as a client setting, `profile: "fapi2"`: what such a client must
// register, and the algorithms it may use. Where each rule is enforced is said beside it, citing the profile's section.

/** FAPI 2.0 5.4.1: "shall use PS256, ES256 or EdDSA (using the Ed25519 variant)" for every signature. */
export const FAPI2_ALGS = ['PS256', 'ES256', 'EdDSA'] as const;

/** FAPI 2.0 5.3.2.1 (6): authorization codes live 60 seconds at most. */
export const FAPI2_MAX_CODE_TTL_SECONDS = 60;

export function isFapi2Alg(alg: unknown): boolean {
  return (FAPI2_ALGS as readonly unknown[]).includes(alg);
}

/**
 * What a FAPI 2.0 client's registration must say: private_key_jwt (5.3.2.1: client authentication by private_key_jwt
 * or mTLS; mTLS is not offered here), and PS256, ES256 or EdDSA wherever an algorithm is registered, its ID tokens'
 * included (RS256, the default, is not allowed). Each problem starts with the field's name.
 */
export function fapi2Problems(c: Record<string, unknown>): Array<{ field: string; message: string }> {
  if (c.profile === undefined) return [];
  if (c.profile !== 'fapi2') return [{ field: 'profile', message: 'profile may only be "fapi2" (the FAPI 2.0 Security Profile)' }];
  const problems: Array<{ field: string; message: string }> = [];
  if (c.token_endpoint_auth_method !== 'private_key_jwt')
    problems.push({ field: 'token_endpoint_auth_method', message: 'token_endpoint_auth_method must be private_key_jwt for FAPI 2.0' });
  const algs = FAPI2_ALGS.join(', ');
  if (!isFapi2Alg(c.id_token_signed_response_alg))
    problems.push({ field: 'id_token_signed_response_alg', message: `id_token_signed_response_alg must be one of ${algs} for FAPI 2.0` });
  for (const field of ['token_endpoint_auth_signing_alg', 'request_object_signing_alg']) {
    if (c[field] !== undefined && !isFapi2Alg(c[field])) problems.push({ field, message: `${field} must be one of ${algs} for FAPI 2.0` });
  }
  return problems;
}
