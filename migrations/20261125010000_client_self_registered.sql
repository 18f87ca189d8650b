-- Whether a client registered itself (RFC 7591) rather than being configured by an operator (seed file, admin
-- command line). Requests the provider sends to such a client's URIs are held to stricter rules (https, public
-- addresses only: src/outbound/policy.ts). The registration access token cannot tell it: it is revoked (set to
-- NULL) when presented for another client, and the client must not become trusted by that.
ALTER TABLE clients ADD COLUMN self_registered boolean NOT NULL DEFAULT false;
UPDATE clients SET self_registered = true WHERE registration_access_token_hash IS NOT NULL;
