-- A public id for each console session (issue 38): the session lists of the management API, the console and the
-- account page show console sessions beside the browser sessions and name them by it. Random and unrelated to the
-- cookie, whose digest stays the row's key and is never shown.
ALTER TABLE console_sessions ADD COLUMN sid text NOT NULL DEFAULT gen_random_uuid()::text;
