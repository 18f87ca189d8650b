-- The purge of the outbox (src/storage/purge.ts) picks its rows by created_at: a message is kept a day, a one-time
-- code until it could no longer be used. Without an index each batch read the outbox from end to end, and a day of
-- sign-in notices and codes for a deployment of a million users is not a small table (issue 21; found by
-- test/storage/hot-statements-use-indexes.test.ts).
CREATE INDEX outbox_created_at_idx ON outbox (created_at);
