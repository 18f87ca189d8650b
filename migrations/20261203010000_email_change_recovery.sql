-- A pending email change ends with a recovery (issue 38): a password reset or change, signing out everywhere,
-- disabling the user, an admin setting the address, or the cancel link of the notice sent to the current address.
-- ended_at: when it was ended so (a used link has used_at instead); cancel_digest: SHA-256 of the notice's cancel
-- token (256 random bits), NULL for changes asked before this migration, which the notice had no link for.
ALTER TABLE email_changes ADD COLUMN ended_at timestamptz;
ALTER TABLE email_changes ADD COLUMN cancel_digest text;
CREATE UNIQUE INDEX email_changes_cancel_digest_idx ON email_changes (cancel_digest);
