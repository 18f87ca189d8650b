-- Failed sign-in counters shared by every instance, and the indexes the purge job walks.

-- One row per throttled key: 'account:' or 'ip:' followed by the base64url SHA-256 digest of the normalised login
-- or client address, so that a password typed into the username field is never stored. `failures` counts the
-- attempts since the counter was last reset; `locked_until` is when the next attempt may start;
-- the row is forgotten at `expires_at`.
CREATE TABLE sign_in_throttle (
  key           text PRIMARY KEY,
  failures      integer NOT NULL CHECK (failures >= 0),
  locked_until  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX sign_in_throttle_expires_at_idx ON sign_in_throttle (expires_at);

CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
CREATE INDEX interactions_expires_at_idx ON interactions (expires_at);
CREATE INDEX authorization_codes_expires_at_idx ON authorization_codes (expires_at);
CREATE INDEX access_tokens_expires_at_idx ON access_tokens (expires_at);
