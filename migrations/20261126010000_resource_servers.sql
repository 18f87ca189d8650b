-- Resource servers (the APIs access tokens are for) and the audience of each token (RFC 8707, RFC 9068).
--
-- A resource server is named by an absolute URI (RFC 8707 2), defines scopes (with the sentence the consent page
-- shows for each), and says which access tokens it wants: opaque (checked at introspection) or jwt (RFC 9068,
-- signed with signing_alg), living access_token_ttl_seconds. The clients of introspecting_clients (the resource server
-- itself, authenticating as a client) may introspect the tokens issued for it to any client (RFC 7662 2.1).
CREATE TABLE resource_servers (
  identifier                text PRIMARY KEY,
  name                      text,
  scopes                    text[] NOT NULL DEFAULT '{}',
  scope_descriptions        jsonb NOT NULL DEFAULT '{}',
  token_format              text NOT NULL DEFAULT 'opaque' CHECK (token_format IN ('opaque', 'jwt')),
  access_token_ttl_seconds  integer NOT NULL CHECK (access_token_ttl_seconds BETWEEN 60 AND 86400),
  signing_alg               text NOT NULL DEFAULT 'RS256',
  introspecting_clients     text[] NOT NULL DEFAULT '{}',
  created_at                timestamptz NOT NULL,
  updated_at                timestamptz NOT NULL
);

-- The resources an authorization request named (RFC 8707 2.1), carried by its code and by the refresh tokens of
-- the grant, so that a token request may narrow to one of them (2.2).
ALTER TABLE authorization_codes ADD COLUMN resources text[] NOT NULL DEFAULT '{}';
ALTER TABLE refresh_tokens ADD COLUMN resources text[] NOT NULL DEFAULT '{}';
-- The resource server an access token is for; NULL: this provider (its userinfo endpoint). A jwt-format token's row
-- is found by the digest of "jwt:" and its jti, an opaque token's by the digest of its value.
ALTER TABLE access_tokens ADD COLUMN audience text;
