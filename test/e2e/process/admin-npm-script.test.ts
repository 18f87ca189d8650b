// `npm run admin -- rules add ...` runs `sso-admin rules add ...` through npm (test/e2e/in-process/admin-cli-rules.test.ts
// tests the verbs themselves); the tool has that one name (its old second names, `npm run risk` and `npm run keys`,
// are gone).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { adminStore, json, parseRun } from '../../helpers/admin-cli.js';
import { childEnv, collect, PROJECT_DIR } from '../../helpers/child-process.js';

t.test('npm run admin -- rules add adds a rule; npm run risk and npm run keys are no second names for it', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.risk, undefined, 'one name for the admin command line');
  t.equal(pkg.scripts.keys, undefined, "the signing keys are the admin command line's too (sso-admin keys)");
  t.equal(pkg.scripts.admin, 'node --import tsx src/cli/admin.ts');

  const store = await adminStore(t, { forChildren: true });
  // One run through npm (each costs npm, the TypeScript loader and a database open): what it wrote is read back here.
  const added = parseRun(
    await collect(
      spawn(
        'npm',
        ['run', '--silent', 'admin', '--', 'rules', 'add', '--kind', 'network', '--value', '203.0.113.0/24', '--effect', 'block', '--json'],
        {
          cwd: PROJECT_DIR,
          env: childEnv({ LOG_LEVEL: 'warn', ...store.env }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    ),
  );
  const rule = json<{ id: string }>(added);
  const stored = await store.withDb((db) => db.selectFrom('risk_rules').select(['id', 'kind', 'value', 'effect']).execute());
  t.same(stored, [{ id: rule.id, kind: 'network', value: '203.0.113.0/24', effect: 'block' }], 'the rule is in the database');
});
