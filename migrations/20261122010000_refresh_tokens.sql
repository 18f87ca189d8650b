-- Refresh tokens (RFC 6749 6, OIDC Core 11-12), rotated on every use; client_credentials access tokens (RFC 6749 4.4).

-- One row per refresh token ever issued, stored by the SHA-256 digest of its value. A family is every rotation of one
-- grant: a token presented again after rotation revokes its whole family (RFC 9700 4.14.2). Rotated rows are kept
-- (rotated_at set) until they expire so that such a replay is recognised.
CREATE TABLE refresh_tokens (
  token_hash  text PRIMARY KEY,
  family_id   uuid NOT NULL,
  client_id   text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scope       text NOT NULL,
  auth_time   timestamptz NOT NULL,
  issued_at   timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  rotated_at  timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_family_id_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_expires_at_idx ON refresh_tokens (expires_at);

-- Access tokens from the client_credentials grant belong to a client, not to a user.
ALTER TABLE access_tokens ALTER COLUMN user_id DROP NOT NULL;
-- The refresh token family an access token was issued with (at code exchange or refresh), so that revoking the
-- family revokes its access tokens (RFC 7009 2.1).
ALTER TABLE access_tokens ADD COLUMN refresh_family_id uuid;
CREATE INDEX access_tokens_refresh_family_id_idx ON access_tokens (refresh_family_id) WHERE refresh_family_id IS NOT NULL;
