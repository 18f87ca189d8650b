// npm run seed -- path/to/seed.json: upserts the file's clients, users and risk rules, all or nothing.
import fs from 'node:fs';
import { PasswordHasher } from '../src/domain/accounts/passwords.js';
import { PasswordPolicy } from '../src/domain/accounts/password-policy.js';
import { applySeed, parseSeed, SeedError } from '../src/domain/admin/seed.js';
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from '../src/runtime.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: npm run seed -- path/to/seed.json\n');
  process.exit(2);
}

const config = loadRuntimeConfig();
let seed;
try {
  seed = parseSeed(JSON.parse(fs.readFileSync(file, 'utf8')), new PasswordPolicy(config.passwordPolicy));
} catch (err) {
  const reason = err instanceof SeedError || err instanceof SyntaxError ? err.message : (err as Error).message;
  process.stderr.write(`${file}: ${reason}\n`);
  process.exit(1);
}

const logger = createLogger(config, 2);
const database = await openMigratedDatabase(config, logger);
try {
  const report = await applySeed(database.db, new PasswordHasher(config.argon2), seed, new Date(), {
    keysEncryptionSecret: config.keysEncryptionSecret,
    samlMetadata: { config, outbound: undefined },
  });
  const line = (name: string, c: { created: number; updated: number; unchanged: number }) =>
    `${name}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged`;
  process.stdout.write(`${line('clients', report.clients)}\n${line('users', report.users)}\n`);
  if (report.resource_servers) process.stdout.write(`${line('resource servers', report.resource_servers)}\n`);
  if (report.risk_rules) process.stdout.write(`${line('risk rules', report.risk_rules)}\n`);
  if (report.directories) process.stdout.write(`${line('directories', report.directories)}\n`);
  if (report.connections) process.stdout.write(`${line('connections', report.connections)}\n`);
  if (report.groups) process.stdout.write(`${line('groups', report.groups)}\n`);
  if (report.webhooks) process.stdout.write(`${line('webhooks', report.webhooks)}\n`);
} catch (err) {
  process.stderr.write(`seeding failed, nothing was written: ${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
