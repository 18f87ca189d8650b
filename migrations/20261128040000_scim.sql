-- SCIM 2.0 provisioning (issue 20, RFC 7643 / RFC 7644): what a provisioning client knows of a user beyond the
-- users table. externalId (RFC 7643 3.1) is the client's own identifier of the user, caseExact; lastModified is
-- the later of users.updated_at and this row's updated_at, which every SCIM change touches (disabling a user
-- writes no updated_at of its own). A table of its own rather than users columns: no statement that reads users
-- pays for it, and a user deleted takes it along.
CREATE TABLE scim_users (
  user_id      uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  external_id  text CHECK (length(external_id) BETWEEN 1 AND 1000),
  updated_at   timestamptz NOT NULL
);
-- filter=externalId eq "..." (Entra and Okta both match on it).
CREATE INDEX scim_users_external_id_idx ON scim_users (external_id);
