-- Enterprise SAML identity providers as connections (issue 39): a third connection kind. Its IdP's entityID, SSO and
-- SLO endpoints, signing certificates, the metadata they came from (and the URL it is refreshed from) and the
-- attribute mapping are one versioned JSON value (src/domain/saml/sp/saml-settings.ts); null for oidc and oauth2.
ALTER TABLE connections DROP CONSTRAINT connections_kind_check;
ALTER TABLE connections ADD CONSTRAINT connections_kind_check CHECK (kind IN ('oidc', 'oauth2', 'saml'));
ALTER TABLE connections ADD COLUMN saml jsonb;

-- SAML Profiles 4.1.4.5: "the service provider MUST ensure that bearer assertions are not replayed, by maintaining the
-- set of used ID values for the length of time for which the assertion would be considered valid". Each assertion ID
-- a connection's IdP sent is kept until its NotOnOrAfter (src/storage/saml-assertions.ts), then purged.
CREATE TABLE saml_assertions (
  connection_id  text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  assertion_id   text NOT NULL,
  expires_at     timestamptz NOT NULL,
  PRIMARY KEY (connection_id, assertion_id)
);
CREATE INDEX saml_assertions_expires_at_idx ON saml_assertions (expires_at);
