-- Pushed authorization requests (RFC 9126): the parameters a client pushed, under the digest of the request_uri it
-- was given, until the request is used or expires. RFC 9126 4: the request_uri is single-use; consumed_at marks
-- the use, so that a second one is told apart from an unknown value (both are refused). Rows go when they expire
-- (src/storage/purge.ts). The request_uri itself is a bearer value of 256 random bits: only its SHA-256 is kept.
CREATE TABLE pushed_authorization_requests (
  request_uri_hash  text PRIMARY KEY,
  client_id         text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  params            jsonb NOT NULL,
  expires_at        timestamptz NOT NULL,
  consumed_at       timestamptz
);
CREATE INDEX pushed_authorization_requests_expires_at_idx ON pushed_authorization_requests (expires_at);
CREATE INDEX pushed_authorization_requests_client_id_idx ON pushed_authorization_requests (client_id);
