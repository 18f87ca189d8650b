-- Authenticator apps (TOTP, RFC 6238) enrolled from the account page, and what revoking a device needs.
-- One authenticator per user. `secret` is the AES-256-GCM envelope {v, iv, tag, ciphertext} of the shared secret
-- under a key derived from KEYS_ENCRYPTION_SECRET (src/domain/totp-secrets.ts), never the secret itself.
-- `confirmed_at` is null while the enrolment waits for its first code. `last_used_step` is the time step of the
-- last code accepted: a code of that step or an earlier one is a replay (RFC 6238 5.2). `failed_attempts` counts
-- wrong codes since the last right one; `locked_until` stops codes from being tried for a while after too many.
CREATE TABLE totp_authenticators (
  user_id          uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret           jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  confirmed_at     timestamptz,
  last_used_step   bigint,
  failed_attempts  integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  locked_until     timestamptz
);

-- A challenge answered with an authenticator app has no code of ours to compare with.
ALTER TABLE second_factor_challenges DROP CONSTRAINT second_factor_challenges_method_check;
ALTER TABLE second_factor_challenges ADD CONSTRAINT second_factor_challenges_method_check CHECK (method IN ('otp', 'totp'));
ALTER TABLE second_factor_challenges ALTER COLUMN code_hash DROP NOT NULL;

-- Revoking a device revokes the refresh tokens issued through its sessions, found by their sid.
CREATE INDEX refresh_tokens_sid_idx ON refresh_tokens (sid);
