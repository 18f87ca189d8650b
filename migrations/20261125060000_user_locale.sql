-- The language a user last used the pages in (en, de, fr: src/i18n/catalog.ts), set at sign-up and at each sign-in
-- through a page, as Keycloak keeps a `locale` user attribute from its login page. Mails that no page of theirs
-- queued (a notice after an admin's action) speak it; the `locale` claim falls back to it. Null: not known yet.
ALTER TABLE users ADD COLUMN locale text;
