-- Signing key rotation and encryption at rest.
-- A key is published from its creation and signs from activates_at; it retires when the next key of its
-- algorithm activates. private_jwk holds either a clear JWK or an AES-256-GCM envelope {v, iv, tag, ciphertext}.

ALTER TABLE signing_keys ADD COLUMN activates_at timestamptz;
UPDATE signing_keys SET activates_at = created_at;
ALTER TABLE signing_keys ALTER COLUMN activates_at SET NOT NULL;
CREATE INDEX signing_keys_alg_activates_at_idx ON signing_keys (alg, activates_at);

-- The salt from which KEYS_ENCRYPTION_SECRET derives the key-encryption key: one row, created on first use.
CREATE TABLE key_encryption (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  kdf         text NOT NULL,
  salt        text NOT NULL,
  created_at  timestamptz NOT NULL
);
