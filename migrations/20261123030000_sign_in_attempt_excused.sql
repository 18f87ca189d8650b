-- Risk counters (src/storage/risk.ts recordAttempt), second version.
--
-- A failed attempt on a login that then signs in was most likely a typo. It stays in the log (velocity counts every
-- attempt) but is excused: it no longer counts as a failure, neither for the login (FAILED_ATTEMPTS_USER) nor among
-- the distinct failing logins of a device, network or fingerprint (CREDENTIAL_STUFFING). Set when the sign-in
-- completes (markAttemptSucceeded), so that the risk statement reads a flag, not a join.
ALTER TABLE sign_in_attempts ADD COLUMN excused boolean NOT NULL DEFAULT false;

-- Distinct failing logins are read from the latest failures of a network, of a fingerprint, and of a machine
-- (fingerprint and network together: a browser whose cookie is not established yet). Partial indexes hold only
-- failures, so that a busy network or a common fingerprint, with many successful sign-ins, costs no more to read
-- than a quiet one. The fingerprint was only ever read for failures: its full index gives way to the partial one.
CREATE INDEX sign_in_attempts_network_failing_idx ON sign_in_attempts (network_key, at) WHERE NOT succeeded AND NOT excused;
CREATE INDEX sign_in_attempts_machine_failing_idx ON sign_in_attempts (network_key, fingerprint_key, at) WHERE NOT succeeded AND NOT excused;
CREATE INDEX sign_in_attempts_fingerprint_failing_idx ON sign_in_attempts (fingerprint_key, at) WHERE NOT succeeded AND NOT excused;
DROP INDEX sign_in_attempts_fingerprint_idx;
