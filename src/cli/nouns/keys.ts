// sso-admin keys list|rotate: the signing keys (src/cli/signing-keys.ts).
import { SIGNING_ALGS } from '../../domain/keys/signing-algs.js';
import { verb, type Noun } from '../command.js';
import { iso } from '../output.js';
import { listKeys, rotateKeys } from '../../domain/keys/key-admin.js';
import { checkAlgs, checkDelay, KEY_TABLE_HEADER, keyJson, keyTableRow, rotationLine } from '../signing-keys.js';

export const keys: Noun = {
  name: 'keys',
  summary: 'the keys that sign ID tokens, and their rotation',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every signing key with its state and times (pending, active, retired, expired).',
      async run(session, input) {
        const all = await listKeys(session.ctx);
        if (input.json) session.out.json(all.map(keyJson));
        else session.out.table(KEY_TABLE_HEADER, all.map(keyTableRow), 'no signing keys yet (the first start makes them)');
      },
    }),
    verb({
      name: 'rotate',
      summary: 'Add a new key for each algorithm: published at once, signing after the delay.',
      options: {
        alg: {
          type: 'string',
          value: SIGNING_ALGS.join('|'),
          multiple: true,
          description: 'rotate this algorithm only (every one without it)',
        },
        delay: { type: 'string', value: 'SECONDS', description: 'seconds before the new key signs (default KEY_ACTIVATION_DELAY_SECONDS)' },
      },
      destructive: true,
      notes: `The key it replaces stays published until every ID token it signed has expired. Keep the delay above
KEYS_REFRESH_SECONDS + 300 so that every instance and relying party has the new key before it signs; use
--delay 0 only when a key may have leaked (README, Signing keys).`,
      prepare: (input) => ({
        algs: checkAlgs(input.options.alg as string[] | undefined),
        delay: checkDelay(input.options.delay as string | undefined),
      }),
      async run(session, input, { algs, delay }: { algs: ReturnType<typeof checkAlgs>; delay: number | undefined }) {
        await session.confirm(
          `Add a new signing key for ${algs.join(', ')}, signing in ${delay ?? session.config.keyActivationDelaySeconds} s?`,
        );
        const rotation = await rotateKeys(session.ctx, algs, delay);
        for (const warning of rotation.warnings) session.warn(`warning: ${warning}`);
        if (input.json)
          return session.out.json(rotation.rotated.map((k) => ({ kid: k.kid, alg: k.alg, activates_at: iso(k.activatesAt) })));
        for (const key of rotation.rotated) session.out.line(rotationLine(key, rotation.delay));
      },
    }),
  ],
};
