-- Issue 19: "Upstream tokens ... are not kept unless a setting asks for it (then encrypted)". A connection with
-- store_tokens keeps the token response of each sign-in through it on the link, sealed (sealed-secrets.ts, purpose
-- upstream-tokens, bound to the connection and the upstream subject), replaced at every sign-in, gone with the link
-- and cleared when the setting is turned off. A link still waiting for the local password keeps them the same way
-- until it is made or expires.
ALTER TABLE connections ADD COLUMN store_tokens boolean NOT NULL DEFAULT false;
ALTER TABLE connection_links ADD COLUMN tokens_sealed jsonb;
ALTER TABLE connection_links ADD COLUMN tokens_stored_at timestamptz;
ALTER TABLE connection_link_proofs ADD COLUMN tokens_sealed jsonb;
