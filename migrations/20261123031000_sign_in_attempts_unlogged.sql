-- The attempt log is a sliding window of counters, purged after the longest window: nothing in it needs to outlive a
-- crash of the database. Unlogged, its inserts write no WAL, so the statement that records an attempt and reads the
-- counters commits without waiting for a WAL flush, which was most of its time on PostgreSQL (npm run eval:risk).
-- After a crash the table comes back empty and the counters start afresh; a standby does not have it.
ALTER TABLE sign_in_attempts SET UNLOGGED;
