// npm run keys -- list | rotate [--alg ALG] [--delay SECONDS]: the signing keys, over the same domain functions
// the server and the tests use. Running instances pick a rotation up at their next reload (KEYS_REFRESH_SECONDS).
import { parseArgs } from 'node:util';
import { KeyEncryptionError } from '../src/domain/key-encryption.js';
import { describeSigningKeys, rotateSigningKeys } from '../src/domain/key-rotation.js';
import { JWKS_MAX_AGE_SECONDS, keyRetentionSeconds } from '../src/domain/keys.js';
import { SIGNING_ALGS, isSigningAlg, type SigningAlg } from '../src/domain/signing-algs.js';
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
const algs = values.alg ?? [...SIGNING_ALGS];
for (const alg of algs) if (!isSigningAlg(alg)) usage(`--alg must be one of ${SIGNING_ALGS.join(', ')} (got "${alg}")`);
if (values.delay !== undefined && !/^\d+$/.test(values.delay)) usage(`--delay must be a whole number of seconds (got "${values.delay}")`);

const config = loadRuntimeConfig();
const logger = createLogger(config, 2);
const delay = values.delay === undefined ? config.keyActivationDelaySeconds : Number(values.delay);
const iso = (d: Date | null) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

const database = await openMigratedDatabase(config, logger);
try {
  const now = new Date();
  if (command === 'rotate') {
    const rotated = await rotateSigningKeys(database.db, {
      secret: config.keysEncryptionSecret,
      algs: [...new Set(algs)] as SigningAlg[],
      activationDelaySeconds: delay,
      now,
    });
    for (const key of rotated) {
      process.stdout.write(`${key.alg} key ${key.kid} added: published now, signs from ${iso(key.activatesAt)} (in ${delay} s)\n`);
    }
    if (config.keysEncryptionSecret === undefined) {
      process.stderr.write('warning: KEYS_ENCRYPTION_SECRET is not set: the private keys are stored in the clear\n');
    }
    if (delay < config.keysRefreshSeconds + JWKS_MAX_AGE_SECONDS) {
      process.stderr.write(
        `warning: a delay under ${config.keysRefreshSeconds + JWKS_MAX_AGE_SECONDS} s (KEYS_REFRESH_SECONDS + the JWKS max-age) lets the new key sign before every instance and relying party has it\n`,
      );
    }
  } else {
    const keys = await describeSigningKeys(database.db, keyRetentionSeconds(config), now);
    const rows = [
      ['kid', 'alg', 'state', 'created', 'activates', 'retires', 'leaves jwks', 'at rest'],
      ...keys.map((k) => [k.kid, k.alg, k.state, iso(k.createdAt), iso(k.activatesAt), iso(k.retiresAt), iso(k.unpublishesAt), k.encrypted ? 'encrypted' : 'clear']),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const row of rows) process.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
  }
} catch (err) {
  if (err instanceof KeyEncryptionError) process.stderr.write(`${err.message}\n`);
  else logger.fatal({ err }, `keys ${command} failed`);
  process.exitCode = 1;
} finally {
  await database.close();
}
