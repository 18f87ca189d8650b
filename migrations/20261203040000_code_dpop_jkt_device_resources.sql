-- RFC 9449 10: an authorization code bound to a DPoP key by the request's dpop_jkt (or, at the PAR endpoint, by the
-- DPoP proof sent with the push, 10.1): the JWK SHA-256 thumbprint that the proof at the token endpoint must match.
-- Null: a code bound to no key, redeemed with or without a proof as before.
ALTER TABLE authorization_codes ADD COLUMN dpop_jkt text;

-- RFC 8707 2.1 at device authorization (RFC 8628 3.1): the resources the device's request named, as a code keeps
-- them; empty: none (the client's default resource, when it has one).
ALTER TABLE device_authorizations ADD COLUMN resources text[] NOT NULL DEFAULT '{}';
