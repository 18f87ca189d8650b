-- The device authorization grant (RFC 8628): one row per device authorization request, from the request through
-- the user's decision to the one token response it may give.

-- Both codes are kept only as digests: the device code (256 random bits) as its SHA-256, the user code (8 characters
-- of a 20-letter alphabet, too few bits for a plain hash) as an HMAC under a server secret. The requesting device is
-- remembered by a short label ("curl on an unknown system") and the time it asked, never by its address or user
-- agent. `binding_hash` ties the request to the one browser that typed its user code (the digest of a cookie).
-- A used row stays until an access token lifetime past its expiry, so that a replayed device code is recognised and
-- revokes the access token named in `issued_access_token_hash` (and the refresh tokens issued with it).
CREATE TABLE device_authorizations (
  device_code_hash          text PRIMARY KEY,
  user_code_hash            text NOT NULL,
  client_id                 text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  scope                     text NOT NULL,
  device_label              text NOT NULL,
  requested_at              timestamptz NOT NULL,
  expires_at                timestamptz NOT NULL,
  -- The least number of seconds between two polls; raised by 5 with every slow_down (RFC 8628 3.5).
  interval_seconds          integer NOT NULL CHECK (interval_seconds > 0),
  last_polled_at            timestamptz,
  -- Whether the last poll came sooner than interval_seconds after the one before it (set by the polling statement).
  last_poll_too_fast        boolean NOT NULL DEFAULT false,
  status                    text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  binding_hash              text,
  -- Who decided, in which session, and how that session was signed in: for the ID token.
  user_id                   uuid REFERENCES users (id) ON DELETE CASCADE,
  sid                       text,
  auth_time                 timestamptz,
  amr                       text[],
  decided_at                timestamptz,
  consumed_at               timestamptz,
  issued_access_token_hash  text
);
CREATE UNIQUE INDEX device_authorizations_user_code_key ON device_authorizations (user_code_hash);
CREATE INDEX device_authorizations_binding_idx ON device_authorizations (binding_hash) WHERE binding_hash IS NOT NULL;
CREATE INDEX device_authorizations_expires_at_idx ON device_authorizations (expires_at);
