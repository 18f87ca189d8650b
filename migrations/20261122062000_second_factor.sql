-- A sign-in waiting for its second factor (issue: CHALLENGE). The browser holds the challenge id in a cookie;
-- the table keeps its digest, the digest of the one-time code (keyed by the id: six digits alone would be
-- guessable from a digest), the attempts made, and what finishing the sign-in needs.
CREATE TABLE second_factor_challenges (
  id_hash      text PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  method       text NOT NULL CHECK (method IN ('otp')),
  code_hash    text NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  context      jsonb NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  consumed_at  timestamptz
);
CREATE INDEX second_factor_challenges_expires_at_idx ON second_factor_challenges (expires_at);
