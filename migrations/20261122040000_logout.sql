-- RP-Initiated Logout 1.0 and Back-Channel Logout 1.0.

-- The session's public identifier, the `sid` claim of ID and logout tokens. Unlike id_hash (the digest of the
-- cookie) it is random and says nothing about the cookie; existing sessions get one here.
ALTER TABLE sessions ADD COLUMN sid text NOT NULL DEFAULT gen_random_uuid()::text;
CREATE UNIQUE INDEX sessions_sid_key ON sessions (sid);

-- The session a code was issued in, carried to the refresh tokens issued from it, so that every ID token says
-- which session it belongs to.
ALTER TABLE authorization_codes ADD COLUMN sid text;
ALTER TABLE refresh_tokens ADD COLUMN sid text;

-- The clients a session has signed in to: those told by back-channel when it ends. Gone with the session.
CREATE TABLE session_clients (
  sid         text NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
  client_id   text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (sid, client_id)
);

-- Logout tokens still to be delivered (Back-Channel Logout 1.0 2.5). A row is written in the statement that ends
-- the session, so no delivery is lost to a crash; any instance may send it; it goes when delivered or given up.
CREATE TABLE backchannel_logouts (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id        text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  sub              text NOT NULL,
  sid              text NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  created_at       timestamptz NOT NULL
);
CREATE INDEX backchannel_logouts_next_attempt_at_idx ON backchannel_logouts (next_attempt_at);
