-- SCIM 2.0 (issue 20, RFC 7643 3.1): the provisioning client's own identifier of a group (externalId), which Microsoft
-- Entra sends when it creates a group and reads back ("Tutorial: Develop and plan provisioning for a SCIM endpoint",
-- Create Group). Beside the groups table, as scim_users is beside users: no other statement that reads groups pays
-- for it, and a group deleted takes it along. caseExact, as for users.
CREATE TABLE scim_groups (
  group_id     uuid PRIMARY KEY REFERENCES groups (id) ON DELETE CASCADE,
  external_id  text CHECK (length(external_id) BETWEEN 1 AND 1000)
);
CREATE INDEX scim_groups_external_id_idx ON scim_groups (external_id);
