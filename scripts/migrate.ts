// npm run migrate: brings the configured database's schema up to date, then exits.
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from '../src/runtime.js';

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
