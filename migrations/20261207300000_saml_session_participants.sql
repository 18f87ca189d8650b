-- The SAML service providers a session has signed in to (issue 39): what a LogoutRequest to each needs (SAML
-- Profiles 2.0 §4.4.3.3: the NameID and SessionIndex of its assertion), so that single logout can reach them all.
-- Gone with the session, as session_clients are; and with the service provider.
CREATE TABLE saml_session_participants (
  sid             text NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
  entity_id       text NOT NULL REFERENCES saml_service_providers (entity_id) ON DELETE CASCADE ON UPDATE CASCADE,
  name_id         text NOT NULL,
  name_id_format  text NOT NULL,
  session_index   text NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (sid, entity_id)
);
CREATE INDEX saml_session_participants_entity_id_idx ON saml_session_participants (entity_id);
