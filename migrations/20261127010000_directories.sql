-- User federation (issue 19): LDAP and Active Directory servers the password form checks passwords against, and
-- the local users provisioned from their entries.
--
-- settings holds the validated entry (URL, TLS, service bind DN, searches, attribute mapping, timeouts) as the seed
-- file gives it, minus the service bind password, which is sealed (src/domain/keys/sealed-secrets.ts, purpose
-- 'directory-bind') and kept apart. position orders the directories a sign-in searches.
CREATE TABLE directories (
  id                    text PRIMARY KEY,
  display_name          text NOT NULL,
  position              integer NOT NULL,
  enabled               boolean NOT NULL,
  settings              jsonb NOT NULL,
  bind_password_sealed  jsonb NOT NULL,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL
);

-- A local user provisioned from a directory entry. external_id is the entry's stable identifier (entryUUID,
-- objectGUID): a renamed or moved entry keeps its link, and dn is refreshed at each sign-in. A user has one link.
CREATE TABLE directory_links (
  directory_id    text NOT NULL REFERENCES directories (id) ON DELETE CASCADE,
  external_id     text NOT NULL,
  user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  dn              text NOT NULL,
  last_synced_at  timestamptz NOT NULL,
  PRIMARY KEY (directory_id, external_id)
);
CREATE UNIQUE INDEX directory_links_user_id_key ON directory_links (user_id);
