// An unknown client_id costs the same secret verification as a known one (issue 16, finding 11).
import t from 'tap';
import { authenticateClient, SecretVerificationCache } from '../../../src/domain/clients/clients.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';

const ARGON2 = { memoryKiB: 7168, timeCost: 5, parallelism: 1 };

// RFC 6749 10.10 and RFC 6819 5.1.4.2.2: answering an unknown client at once tells an attacker which client_ids exist.
t.test('a secret presented with an unknown client_id is verified against a dummy', async (t) => {
  const passwords = new PasswordHasher(ARGON2, { limits: { maxConcurrent: 2, maxQueued: 4 } });
  const verified: string[] = [];
  const original = passwords.verifyNoClientSecret.bind(passwords);
  passwords.verifyNoClientSecret = (plain) => {
    verified.push(plain);
    return original(plain);
  };
  const deps = { lookup: async () => undefined, passwords, cache: new SecretVerificationCache(0), now: () => new Date() };
  await t.rejects(
    authenticateClient(deps, { method: 'client_secret_basic', clientId: 'nobody', secret: 'guess' }),
    /client authentication failed/,
  );
  t.same(verified, ['guess'], 'one verification of the presented secret');
  await t.rejects(authenticateClient(deps, { method: 'none', clientId: 'nobody' }), /client authentication failed/);
  t.same(verified, ['guess'], 'no secret, no verification');
});
