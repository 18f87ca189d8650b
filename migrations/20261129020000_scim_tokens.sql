-- Long-lived SCIM bearer tokens (issue 20): Microsoft Entra's "Secret Token" and Okta's "HTTP Header" mode take one
-- fixed token, pasted once into their UI and never refreshed. An admin makes one by name; the token itself
-- (scim_ then 256 random bits, base64url) is shown once and only its sha256 digest is kept here, where every SCIM
-- request finds it by the unique index. A revoked token's row is deleted: the audit trail keeps its history.
-- expires_at is null for a token that does not expire; last_used_at moves at most once a minute.
CREATE TABLE scim_tokens (
  name          text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  token_hash    text NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz,
  last_used_at  timestamptz
);
