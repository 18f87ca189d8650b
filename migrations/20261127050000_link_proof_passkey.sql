-- Issue 19: the local account an upstream address belongs to may be proved with its passkey as well as its password.
-- The ceremony's challenge is bound to the link proof, under a purpose of its own.
ALTER TABLE passkey_challenges DROP CONSTRAINT passkey_challenges_purpose_check;
ALTER TABLE passkey_challenges ADD CONSTRAINT passkey_challenges_purpose_check
  CHECK (purpose IN ('registration', 'sign-in', 'second-factor', 'link-proof'));
