-- Linking another upstream account from the account page (issue 19): a trip upstream made by a signed-in person
-- resumes no interaction; it records the user it links to instead. Exactly one of the two says where it returns.
ALTER TABLE upstream_logins ADD COLUMN link_user_id uuid REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE upstream_logins ALTER COLUMN interaction_id DROP NOT NULL;
ALTER TABLE upstream_logins
  ADD CONSTRAINT upstream_logins_one_purpose CHECK ((interaction_id IS NULL) <> (link_user_id IS NULL));
