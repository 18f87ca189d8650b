-- The provider as a SAML 2.0 identity provider (issue 39): its own signing key pairs, and the service providers it
-- answers, registered from their metadata.

-- The SAML signing keys: an RSA key pair with its self-signed certificate, rotated like signing_keys (published from
-- created_at, signing from activates_at, retired when the next activates). private_key is a sealed secret (the
-- PKCS#8 PEM, AES-256-GCM under KEYS_ENCRYPTION_SECRET, or marked clear without it).
CREATE TABLE saml_keys (
  id               text PRIMARY KEY,
  private_key      jsonb NOT NULL,
  certificate_pem  text NOT NULL,
  created_at       timestamptz NOT NULL,
  activates_at     timestamptz NOT NULL
);
CREATE INDEX saml_keys_activates_at_idx ON saml_keys (activates_at);

-- A service provider: its metadata as registered (ACS and SLO endpoints, certificates are read from it), and what
-- it gets. group_restricted and saml_sp_allowed_groups limit it to some groups' members as clients are limited.
CREATE TABLE saml_service_providers (
  entity_id            text PRIMARY KEY CHECK (length(entity_id) BETWEEN 1 AND 1024),
  metadata_xml         text NOT NULL,
  metadata_url         text,
  name_id_format       text NOT NULL CHECK (name_id_format IN ('email', 'persistent', 'transient', 'unspecified')),
  attributes           jsonb NOT NULL,
  sign_assertion       boolean NOT NULL,
  sign_response        boolean NOT NULL,
  encrypt_assertion    boolean NOT NULL,
  idp_initiated        boolean NOT NULL,
  group_restricted     boolean NOT NULL DEFAULT false,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);

CREATE TABLE saml_sp_allowed_groups (
  entity_id  text NOT NULL REFERENCES saml_service_providers (entity_id) ON DELETE CASCADE ON UPDATE CASCADE,
  group_id   uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  PRIMARY KEY (entity_id, group_id)
);
CREATE INDEX saml_sp_allowed_groups_group_idx ON saml_sp_allowed_groups (group_id);
