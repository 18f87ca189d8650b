-- An access token keeps the digest of the code it was issued for (the replay of a code revokes what was issued from
-- it, RFC 6749 4.1.2), but no longer as a foreign key. The key's ON DELETE SET NULL made the purge of each batch of
-- used codes rewrite every access token issued from them, up to a thousand random updates in a table of millions
-- (issue 21's soak: 43 purge batches over 100 ms), and every code exchange checked the code's row once more. Nothing
-- reads the column once its code is gone: a code's replay is found through the code, and the purge keeps a used
-- code until the tokens issued from it have expired.
ALTER TABLE access_tokens DROP CONSTRAINT IF EXISTS access_tokens_code_hash_fkey;
