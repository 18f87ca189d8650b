-- Password reset links (src/domain/accounts/password-reset.ts). A link carries 256 random bits; only their SHA-256
-- digest is stored. A link works once, until expires_at, while it is the user's newest (id orders them), while the
-- user is enabled, and while the user's password is the one it was issued against: password_fingerprint is the
-- SHA-256 of the password hash then, so that any change of password (a reset, the account page, the admin command
-- line, the seed file) ends every link issued before it, with no bookkeeping at those places.
CREATE TABLE password_resets (
  id                    bigint GENERATED ALWAYS AS IDENTITY,
  token_digest          text PRIMARY KEY,
  user_id               uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  password_fingerprint  bytea NOT NULL,
  -- The authorization request the person was signing in to, to go back to once the password is set.
  interaction_id        text,
  created_at            timestamptz NOT NULL,
  expires_at            timestamptz NOT NULL,
  used_at               timestamptz
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id, id);
CREATE INDEX password_resets_expires_at_idx ON password_resets (expires_at);
