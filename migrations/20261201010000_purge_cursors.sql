-- Where the purge's walk of each table stands (src/storage/purge.ts), shared by every instance and kept across
-- restarts: a walk that starts from the oldest row reads the index entries of every row deleted since the last
-- VACUUM, and the first batch of sign-in attempts after a restart took 43.8 s so (issue 21's soak). A walk starts
-- afresh an hour after it began (walk_started_at), for rows kept before that may go now.
CREATE TABLE purge_cursors (
  table_name       text PRIMARY KEY,
  position         timestamptz NOT NULL,
  walk_started_at  timestamptz NOT NULL
);
