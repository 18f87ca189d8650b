-- The web console's built-in client (src/domain/console/console-client.ts) requires a second factor of its users
-- (`require_mfa` client metadata, src/domain/accounts/second-factor-policy.ts): a console client written before the
-- setting existed gets it, so that the provider itself asks for the second factor the console has always demanded.
-- The revision trigger raises the row's revision, so that every instance's cached copy of the client is refreshed.
UPDATE clients SET metadata = metadata || '{"require_mfa": true}'::jsonb
WHERE client_id = 'sso-console' AND NOT metadata ? 'require_mfa';
