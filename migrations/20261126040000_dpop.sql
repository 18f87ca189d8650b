-- Sender-constrained tokens: DPoP (RFC 9449).
--
-- jkt is the JWK SHA-256 thumbprint (RFC 7638) of the key a DPoP proof was signed with: an access token bound to it
-- is used only with a proof by that key (RFC 9449 6), and so is a public client's refresh token (RFC 9449 5).
ALTER TABLE access_tokens ADD COLUMN jkt text;
ALTER TABLE refresh_tokens ADD COLUMN jkt text;

-- RFC 9449 11.1: the jti of each proof accepted, until it could no longer be accepted (its iat window has passed), so
-- that every instance refuses its replay.
CREATE TABLE dpop_proof_jtis (
  jti_hash    text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX dpop_proof_jtis_expires_at_idx ON dpop_proof_jtis (expires_at);
