// npm run migrate: brings the configured database's schema up to date, then exits.
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from '../src/runtime.js';

const USAGE = `usage: npm run migrate

Applies the migrations this build ships to the database DATABASE_URL names (or the embedded one under DATA_DIR),
then exits. It takes no arguments.
`;

const args = process.argv.slice(2);
if (args.length > 0) {
  // Asked for help, or given something it does not take: either way it touches no database.
  const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h');
  (help ? process.stdout : process.stderr).write(help ? USAGE : `unknown argument: ${args.join(' ')}\n${USAGE}`);
  process.exit(help ? 0 : 2);
}

const config = loadRuntimeConfig();
const logger = createLogger(config, 2);
try {
  const database = await openMigratedDatabase(config, logger);
  logger.info({ database: database.kind, location: database.location }, 'schema is up to date');
  await database.close();
} catch (err) {
  logger.fatal({ err }, 'migration failed');
  process.exitCode = 1;
}
