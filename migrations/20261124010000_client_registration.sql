-- Dynamic client registration (RFC 7591) and its management (RFC 7592).
-- The registration access token of a client that registered itself, stored as the base64url SHA-256 digest of its
-- value (NULL for clients an operator seeded: they have no client configuration endpoint). When the client secret
-- stops working (RFC 7591 3.2.1 client_secret_expires_at); NULL: never.
ALTER TABLE clients ADD COLUMN registration_access_token_hash text;
ALTER TABLE clients ADD COLUMN client_secret_expires_at timestamptz;
CREATE UNIQUE INDEX clients_registration_access_token_hash_key ON clients (registration_access_token_hash)
  WHERE registration_access_token_hash IS NOT NULL;
