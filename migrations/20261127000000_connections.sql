-- Upstream identity providers (issue 19): OpenID Connect issuers and OAuth 2.0 services a person may sign in
-- through (src/domain/connections/). A connection's client secret is sealed (src/domain/keys/sealed-secrets.ts,
-- purpose connection-secret), never kept in the clear unless KEYS_ENCRYPTION_SECRET is unset (and marked so).
CREATE TABLE connections (
  id                      text PRIMARY KEY,
  display_name            text NOT NULL,
  icon                    text,
  kind                    text NOT NULL CHECK (kind IN ('oidc', 'oauth2')),
  preset                  text CHECK (preset IN ('google', 'microsoft', 'github', 'gitlab')),
  issuer                  text,
  authorization_endpoint  text,
  token_endpoint          text,
  userinfo_endpoint       text,
  client_id               text NOT NULL,
  client_secret_sealed    jsonb,
  scopes                  text[] NOT NULL,
  claim_mapping           jsonb NOT NULL,
  provisioning            text NOT NULL CHECK (provisioning IN ('create', 'link', 'refuse')),
  email_domains           text[] NOT NULL DEFAULT '{}',
  -- The upstream's amr and acr values are passed on only when the admin says they can be believed.
  trust_amr               boolean NOT NULL DEFAULT false,
  enabled                 boolean NOT NULL DEFAULT true,
  created_at              timestamptz NOT NULL,
  updated_at              timestamptz NOT NULL
);

-- One upstream account (the connection's `sub`) belongs to at most one local user.
CREATE TABLE connection_links (
  connection_id  text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  subject        text NOT NULL,
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at     timestamptz NOT NULL,
  last_used_at   timestamptz NOT NULL,
  -- The link made the account (just-in-time provisioning): its password is one nobody was told.
  provisioned    boolean NOT NULL DEFAULT false,
  PRIMARY KEY (connection_id, subject)
);
CREATE INDEX connection_links_user_id_idx ON connection_links (user_id);

-- A sign-in sent upstream and not back yet: found by the digest of its `state`, bound to the browser by the digest
-- of a cookie, used once (consumed_at), gone when it expires (src/storage/purge.ts). The PKCE verifier is sealed.
CREATE TABLE upstream_logins (
  state_hash       text PRIMARY KEY,
  browser_hash     text NOT NULL,
  connection_id    text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  interaction_id   text NOT NULL,
  nonce            text NOT NULL,
  verifier_sealed  jsonb NOT NULL,
  expires_at       timestamptz NOT NULL,
  consumed_at      timestamptz
);
CREATE INDEX upstream_logins_expires_at_idx ON upstream_logins (expires_at);

-- An upstream account whose verified email is a local account's: linked only once the person proves they own the
-- local account (its password), so that an upstream account never takes over a local one by claiming its address.
CREATE TABLE connection_link_proofs (
  id_hash         text PRIMARY KEY,
  browser_hash    text NOT NULL,
  connection_id   text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  subject         text NOT NULL,
  user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  interaction_id  text NOT NULL,
  expires_at      timestamptz NOT NULL,
  consumed_at     timestamptz
);
CREATE INDEX connection_link_proofs_expires_at_idx ON connection_link_proofs (expires_at);
