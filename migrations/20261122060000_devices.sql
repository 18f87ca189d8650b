-- Device intelligence: the devices users sign in from, what each session was signed in with, security events,
-- and the outbox that carries one-time codes and notifications to users.

-- One row per user and device cookie. Nothing here is a raw address or user agent: the cookie is kept as its
-- SHA-256 digest, the fingerprint and the network as HMACs under a server secret; `label` is a short display name
-- such as "Firefox on Linux".
CREATE TABLE devices (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  cookie_hash    text NOT NULL,
  fingerprint    text NOT NULL,
  network_key    text NOT NULL,
  label          text NOT NULL,
  first_seen_at  timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  sign_in_count  integer NOT NULL DEFAULT 0 CHECK (sign_in_count >= 0),
  trusted        boolean NOT NULL DEFAULT false,
  revoked_at     timestamptz
);
CREATE UNIQUE INDEX devices_user_cookie_key ON devices (user_id, cookie_hash);
CREATE INDEX devices_cookie_hash_idx ON devices (cookie_hash);

-- The device a session was signed in from, and how (OIDC Core 2 `amr`: "pwd", "otp", ...). The codes and refresh
-- tokens issued in a session carry its amr to the ID tokens made from them.
ALTER TABLE sessions ADD COLUMN device_id uuid REFERENCES devices (id) ON DELETE SET NULL;
ALTER TABLE sessions ADD COLUMN amr text[] NOT NULL DEFAULT '{pwd}';
CREATE INDEX sessions_device_id_idx ON sessions (device_id);
ALTER TABLE authorization_codes ADD COLUMN amr text[];
ALTER TABLE refresh_tokens ADD COLUMN amr text[];

-- What happened, for admins and allowed relying parties: sign-in allowed, challenged, blocked, new device,
-- device revoked, ... `details` holds the verdict (score and reasons) and labels, never a secret.
CREATE TABLE security_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type        text NOT NULL,
  user_id     uuid REFERENCES users (id) ON DELETE SET NULL,
  device_id   uuid REFERENCES devices (id) ON DELETE SET NULL,
  client_id   text,
  created_at  timestamptz NOT NULL,
  details     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX security_events_created_at_idx ON security_events (created_at);
CREATE INDEX security_events_user_id_idx ON security_events (user_id, created_at);

-- Messages to users (one-time codes, new-device notices), written in the transaction that decides to send them
-- and delivered by a pluggable notifier; any instance may deliver a row, which is marked when sent.
CREATE TABLE outbox (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind             text NOT NULL,
  payload          jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  sent_at          timestamptz
);
CREATE INDEX outbox_due_idx ON outbox (next_attempt_at) WHERE sent_at IS NULL;
