-- The failures of one login were read through the login's index of every attempt, each row's flags checked in the
-- table: by the risk statement (src/storage/hot-path/record-attempt.ts, FAILED_ATTEMPTS_USER: the failures since it
-- last signed in, within the stuffing window) and by the sign-in that excuses them (src/storage/risk.ts
-- recordDeviceSighting, every earlier attempt of the login, with no window). An account that signs in often paid
-- for all its attempts on every sign-in: for the bench's one user after a few minutes, 1,541 rows (0.25 ms) in the
-- first and 1,683 (0.6 ms) in the second. Like the failures of a network, a machine and a fingerprint, a login's
-- failures now have a partial index that holds failures only.
CREATE INDEX sign_in_attempts_login_failing_idx ON sign_in_attempts (login_key, at) WHERE NOT succeeded AND NOT excused;
