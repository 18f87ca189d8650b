-- OIDC Core 2 `acr`: the authentication context class of a sign-in, when one is known. This provider defines no
-- classes of its own (discovery advertises no acr_values_supported); an upstream connection trusted for it
-- (trust_amr, issue 19) passes on the acr of its ID token. It travels as amr does: from the session to the code,
-- to the refresh token of every rotation, and through a device authorization, into ID tokens and JWT access tokens
-- (RFC 9068 2.2.1).
ALTER TABLE sessions ADD COLUMN acr text;
ALTER TABLE authorization_codes ADD COLUMN acr text;
ALTER TABLE refresh_tokens ADD COLUMN acr text;
ALTER TABLE device_authorizations ADD COLUMN acr text;
