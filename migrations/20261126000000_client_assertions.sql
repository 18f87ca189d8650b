-- Client authentication with JWTs (RFC 7523 2.2; OIDC Core 9 private_key_jwt and client_secret_jwt).
--
-- private_key_jwt clients hold no secret: their public keys are in the metadata (`jwks`) or behind `jwks_uri`.
-- client_secret_jwt clients sign with their secret as an HMAC key, which a digest cannot give back: besides the
-- digest every other secret method keeps, theirs is kept sealed (AES-256-GCM under a key derived from
-- KEYS_ENCRYPTION_SECRET; without it, in the clear and marked so, like authenticator secrets).
ALTER TABLE clients ADD COLUMN client_secret_sealed jsonb;
ALTER TABLE clients DROP CONSTRAINT clients_secret_matches_auth_method;
ALTER TABLE clients ADD CONSTRAINT clients_secret_matches_auth_method CHECK (
  (token_endpoint_auth_method IN ('none', 'private_key_jwt')) = (client_secret_hash IS NULL)
  AND (token_endpoint_auth_method = 'client_secret_jwt') = (client_secret_sealed IS NOT NULL)
);

-- RFC 7523 3 (7): "The authorization server MAY ensure that JWTs are not replayed by maintaining the set of used
-- "jti" values for the length of time for which the JWT would be considered valid based on the applicable "exp"
-- instant." One row per assertion accepted, under the digest of its jti, until its exp: every instance agrees.
CREATE TABLE client_assertion_jtis (
  client_id   text NOT NULL,
  jti_hash    text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (client_id, jti_hash)
);
CREATE INDEX client_assertion_jtis_expires_at_idx ON client_assertion_jtis (expires_at);
