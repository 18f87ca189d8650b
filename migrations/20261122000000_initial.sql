-- The provider's first schema: clients, users, signing keys, sign-in state, codes and access tokens.
-- Every credential-like value (session id, code, access token, interaction binding) is stored as the
-- base64url SHA-256 digest of its value; client secrets and passwords as argon2id hashes.

CREATE TABLE clients (
  client_id                   text PRIMARY KEY,
  client_secret_hash          text,
  client_name                 text,
  redirect_uris               text[] NOT NULL,
  post_logout_redirect_uris   text[] NOT NULL DEFAULT '{}',
  grant_types                 text[] NOT NULL DEFAULT '{authorization_code}',
  response_types              text[] NOT NULL DEFAULT '{code}',
  token_endpoint_auth_method  text NOT NULL DEFAULT 'client_secret_basic',
  metadata                    jsonb NOT NULL DEFAULT '{}',
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL,
  CONSTRAINT clients_secret_matches_auth_method CHECK (
    (token_endpoint_auth_method = 'none') = (client_secret_hash IS NULL)
  )
);

CREATE TABLE users (
  id              uuid PRIMARY KEY,
  username        text NOT NULL,
  password_hash   text NOT NULL,
  email           text,
  email_verified  boolean NOT NULL DEFAULT false,
  claims          jsonb NOT NULL DEFAULT '{}',
  disabled_at     timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;

CREATE TABLE signing_keys (
  kid          text PRIMARY KEY,
  alg          text NOT NULL,
  private_jwk  jsonb NOT NULL,
  public_jwk   jsonb NOT NULL,
  created_at   timestamptz NOT NULL
);

CREATE TABLE sessions (
  id_hash     text PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  auth_time   timestamptz NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);

CREATE TABLE consents (
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id   text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  scopes      text[] NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (user_id, client_id)
);

-- A pending authorization request waiting for the user to sign in or consent, bound to one browser.
CREATE TABLE interactions (
  id            text PRIMARY KEY,
  binding_hash  text NOT NULL,
  client_id     text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  request       jsonb NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  completed_at  timestamptz
);

CREATE TABLE authorization_codes (
  code_hash                text PRIMARY KEY,
  client_id                text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id                  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  redirect_uri             text NOT NULL,
  redirect_uri_in_request  boolean NOT NULL,
  scope                    text NOT NULL,
  nonce                    text,
  code_challenge           text,
  auth_time                timestamptz NOT NULL,
  issued_at                timestamptz NOT NULL,
  expires_at               timestamptz NOT NULL,
  consumed_at              timestamptz
);

CREATE TABLE access_tokens (
  token_hash  text PRIMARY KEY,
  code_hash   text REFERENCES authorization_codes (code_hash) ON DELETE SET NULL,
  client_id   text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scope       text NOT NULL,
  issued_at   timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX access_tokens_code_hash_idx ON access_tokens (code_hash);
