-- Passkeys (WebAuthn Level 3 public key credentials) registered from the account page, and the challenges of their
-- ceremonies.
--
-- One row per credential. `credential_id` is the credential ID in base64url (WebAuthn L3 §4 "Credential ID"), unique
-- across users. `public_key` is the COSE_Key of the credential public key as the authenticator gave it (§6.5.1.1).
-- `sign_count` is the last signature counter seen (§6.1.1): a later assertion must carry a greater one unless both are
-- zero. `device_type` and `backed_up` are the backup eligibility and backup state flags (BE, BS; §6.1.3): a
-- multi-device credential is a synced passkey. `aaguid` names the authenticator model (§6.5.1), all zeros when it did
-- not say.
CREATE TABLE passkeys (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id  text NOT NULL UNIQUE,
  public_key     bytea NOT NULL,
  sign_count     bigint NOT NULL DEFAULT 0 CHECK (sign_count >= 0),
  transports     text[] NOT NULL DEFAULT '{}',
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  aaguid         text NOT NULL,
  device_type    text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up      boolean NOT NULL,
  created_at     timestamptz NOT NULL,
  last_used_at   timestamptz
);
CREATE INDEX passkeys_user_id_idx ON passkeys (user_id);

-- A challenge handed to the browser for one registration or sign-in (WebAuthn L3 §13.4.3: random, at least 16
-- bytes, used once). Kept as its digest, with the digest of the browser's binding cookie (the interaction's, the
-- account sign-in's, the second-factor challenge's or the session's) so that a challenge issued to one browser
-- cannot be answered from another. One live challenge per binding and purpose: asking again replaces it.
-- `user_id` is the registering user; null for a sign-in, where the credential names the user.
CREATE TABLE passkey_challenges (
  binding_hash    text NOT NULL,
  purpose         text NOT NULL CHECK (purpose IN ('registration', 'sign-in', 'second-factor')),
  challenge_hash  text NOT NULL,
  user_id         uuid REFERENCES users (id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  consumed_at     timestamptz,
  PRIMARY KEY (binding_hash, purpose)
);
CREATE INDEX passkey_challenges_expires_at_idx ON passkey_challenges (expires_at);
