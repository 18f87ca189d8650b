-- A user's change of email address (src/domain/accounts/email-change.ts): it takes effect only when the new address
-- is verified through the mailed link (token_digest: SHA-256 of 256 random bits). Works once, until expires_at,
-- while it is the user's newest (id orders them).
CREATE TABLE email_changes (
  id            bigint GENERATED ALWAYS AS IDENTITY,
  token_digest  text PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  new_email     text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz
);
CREATE INDEX email_changes_user_idx ON email_changes (user_id, id);
CREATE INDEX email_changes_expires_at_idx ON email_changes (expires_at);
