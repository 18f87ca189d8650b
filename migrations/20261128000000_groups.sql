-- Groups of users and console roles (issue 20).
--
-- A group has a name, unique in any case, and members; the `groups` scope releases the names of a user's groups
-- (with those an upstream provider or a directory maps, kept in users.claims). A client may be limited to the
-- members of some groups: group_restricted marks it, client_allowed_groups names the groups. The mark is kept apart
-- from the rows so that deleting the last group a client allows leaves it admitting nobody, not everybody.
CREATE TABLE groups (
  id           uuid PRIMARY KEY,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  description  text,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE UNIQUE INDEX groups_name_key ON groups (lower(name));

CREATE TABLE group_members (
  group_id  uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  added_at  timestamptz NOT NULL,
  PRIMARY KEY (group_id, user_id)
);
-- The `groups` claim and the allowed-groups check read a user's groups.
CREATE INDEX group_members_user_idx ON group_members (user_id);

CREATE TABLE client_allowed_groups (
  client_id  text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  group_id   uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  PRIMARY KEY (client_id, group_id)
);
CREATE INDEX client_allowed_groups_group_idx ON client_allowed_groups (group_id);

ALTER TABLE clients ADD COLUMN group_restricted boolean NOT NULL DEFAULT false;

-- The console's roles: admin (everything) and auditor (read only); a user without a row has none. A table of its
-- own rather than a users column: no statement that reads users pays for it.
CREATE TABLE user_roles (
  user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('admin', 'auditor')),
  granted_at  timestamptz NOT NULL
);
