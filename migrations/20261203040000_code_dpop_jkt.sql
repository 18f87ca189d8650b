-- RFC 9449 10: an authorization code bound to a DPoP key by the request's dpop_jkt (or, at the PAR endpoint, by the
-- DPoP proof sent with the push, 10.1): the JWK SHA-256 thumbprint that the proof at the token endpoint must match.
-- Null: a code bound to no key, redeemed with or without a proof as before.
ALTER TABLE authorization_codes ADD COLUMN dpop_jkt text;
