-- Risk evaluation: every sign-in attempt, the networks each user signs in from, admin rules, and the secret
-- that keys device fingerprints when DEVICE_SECRET is not set.

-- Secrets the instances share and generate once (the first instance to start inserts, the others read).
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL
);

-- One row per password attempt, for the velocity and credential-stuffing counters. Keys only: `login_key` is
-- the digest of the login as typed, the others HMACs (src/domain/risk/device-identity.ts). `succeeded` turns
-- true when the attempt signs in; an attempt that never does counts as failed. Purged after the longest window.
CREATE TABLE sign_in_attempts (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at               timestamptz NOT NULL,
  login_key        text NOT NULL,
  device_key       text NOT NULL,
  fingerprint_key  text NOT NULL,
  network_key      text NOT NULL,
  succeeded        boolean NOT NULL DEFAULT false
);
CREATE INDEX sign_in_attempts_at_idx ON sign_in_attempts (at);
CREATE INDEX sign_in_attempts_login_idx ON sign_in_attempts (login_key, at);
CREATE INDEX sign_in_attempts_device_idx ON sign_in_attempts (device_key, at);
CREATE INDEX sign_in_attempts_network_idx ON sign_in_attempts (network_key, at);
CREATE INDEX sign_in_attempts_fingerprint_idx ON sign_in_attempts (fingerprint_key, at);

-- The networks (keys) a user has signed in from: NEW_NETWORK is a network not in this list.
CREATE TABLE user_networks (
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  network_key    text NOT NULL,
  first_seen_at  timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  PRIMARY KEY (user_id, network_key)
);

-- Admin rules: allow or block a device (its id), a network (a CIDR) or a username (lower case).
CREATE TABLE risk_rules (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind        text NOT NULL CHECK (kind IN ('device', 'network', 'username')),
  value       text NOT NULL,
  effect      text NOT NULL CHECK (effect IN ('allow', 'block')),
  note        text,
  created_at  timestamptz NOT NULL,
  UNIQUE (kind, value)
);
