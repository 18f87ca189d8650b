// npm run keys -- list | rotate [--alg ALG] [--delay SECONDS]: the signing keys, over the same functions as
// `sso-admin keys` (src/cli/signing-keys.ts, which also asks before a rotation). Running instances pick a rotation
// up at their next reload (KEYS_REFRESH_SECONDS).
import { parseArgs } from 'node:util';
import { UsageError } from '../src/cli/command.js';
import { formatTable } from '../src/cli/output.js';
import { checkAlgs, checkDelay, KEY_TABLE_HEADER, keyTableRow, listKeys, rotateKeys, rotationLine } from '../src/cli/signing-keys.js';
import { KeyEncryptionError } from '../src/domain/keys/key-encryption.js';
import { SIGNING_ALGS } from '../src/domain/keys/signing-algs.js';
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from '../src/runtime.js';

const USAGE = `usage: npm run keys -- list
       npm run keys -- rotate [--alg ${SIGNING_ALGS.join('|')}] [--delay SECONDS]

rotate adds a new key for the algorithm (every algorithm without --alg), published in the JWKS at once and
signing after --delay seconds (default KEY_ACTIVATION_DELAY_SECONDS); the key it replaces stays published until
every ID token it signed has expired.
`;

function usage(problem: string): never {
  process.stderr.write(`${problem}\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { alg: { type: 'string', multiple: true }, delay: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (err) {
  usage((err as Error).message);
}
const { positionals, values } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const command = positionals[0];
if (positionals.length !== 1 || (command !== 'list' && command !== 'rotate')) usage('expected one command: list or rotate');
if (command === 'list' && (values.alg || values.delay !== undefined)) usage('list takes no options');
let algs;
let delayOption;
try {
  algs = checkAlgs(values.alg);
  delayOption = checkDelay(values.delay);
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  usage(err.message);
}

const config = loadRuntimeConfig();
const logger = createLogger(config, 2);

const database = await openMigratedDatabase(config, logger);
try {
  if (command === 'rotate') {
    const { rotated, delay, warnings } = await rotateKeys(database.db, config, logger, algs, delayOption);
    for (const key of rotated) process.stdout.write(`${rotationLine(key, delay)}\n`);
    for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  } else {
    process.stdout.write(formatTable([KEY_TABLE_HEADER, ...(await listKeys(database.db, config)).map(keyTableRow)]));
  }
} catch (err) {
  if (err instanceof KeyEncryptionError) process.stderr.write(`${err.message}\n`);
  else logger.fatal({ err }, `keys ${command} failed`);
  process.exitCode = 1;
} finally {
  await database.close();
}
