-- The claims request parameter (OIDC Core 5.5): what the authorization request asked for the ID token and for
-- userinfo, as JSON text reduced to the claims this provider knows, carried by the code to the tokens issued from
-- it (and the refresh tokens to theirs), so that userinfo answers the request the tokens came from. Null: none.
ALTER TABLE authorization_codes ADD COLUMN claims text;
ALTER TABLE access_tokens ADD COLUMN claims text;
ALTER TABLE refresh_tokens ADD COLUMN claims text;
