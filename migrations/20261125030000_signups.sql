-- Self-service sign-up (src/domain/accounts/signup.ts). A sign-up waits here until its email address is verified,
-- by the link (token_digest: SHA-256 of 256 random bits) or by the six-digit code typed in the browser that signed
-- up (code_digest: HMAC under the server's device secret, bound to the sign-up's id; at most 5 wrong codes). Only
-- then is a user created, so an address nobody verified never holds an account, a username or an email.
CREATE TABLE signups (
  id              text PRIMARY KEY,
  token_digest    text NOT NULL UNIQUE,
  code_digest     text NOT NULL,
  code_failures   integer NOT NULL DEFAULT 0,
  email           text NOT NULL,
  username        text NOT NULL,
  password_hash   text NOT NULL,
  claims          jsonb NOT NULL DEFAULT '{}',
  interaction_id  text,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz
);
CREATE INDEX signups_email_idx ON signups (lower(email));
CREATE INDEX signups_expires_at_idx ON signups (expires_at);

-- Invitations (SIGNUP=invite, sso-admin users invite): a link mailed to an address, which leads to the sign-up form
-- with that address fixed; following it proves the address, so the account is created verified at once.
CREATE TABLE signup_invitations (
  token_digest  text PRIMARY KEY,
  email         text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz
);
CREATE INDEX signup_invitations_expires_at_idx ON signup_invitations (expires_at);

-- Messages to an address that is not (yet) a user's: a sign-up's verification, an invitation, and, soon, the new
-- address of an email change. Such a row has no user; every row has one or the other.
ALTER TABLE outbox ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE outbox ADD COLUMN address text;
ALTER TABLE outbox ADD CONSTRAINT outbox_has_recipient CHECK (user_id IS NOT NULL OR address IS NOT NULL);
