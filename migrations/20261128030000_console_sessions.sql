-- The web console's sessions (issue 20, docs/console.md): one row per signed-in admin or auditor, found by the
-- sha256 digest of the random cookie value (the value itself is never stored). A session ends at expires_at (its
-- absolute lifetime) or when it was not used for the idle lifetime after last_seen_at; the user's deletion ends it.
CREATE TABLE console_sessions (
  id_hash       text PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);
CREATE INDEX console_sessions_expires_at_idx ON console_sessions (expires_at);
