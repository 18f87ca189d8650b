// `npm run admin -- rules ...` runs `sso-admin rules ...` through npm (test/e2e/in-process/admin-cli-rules.test.ts
// tests the verbs themselves); the tool has that one name (its old second names, `npm run risk` and `npm run keys`,
// are gone).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { adminStore, json, parseRun } from '../../helpers/admin-cli.js';
import { childEnv, collect, PROJECT_DIR } from '../../helpers/child-process.js';

t.test('npm run admin -- rules list lists the rules; npm run risk and npm run keys are no second names for it', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.risk, undefined, 'one name for the admin command line');
  t.equal(pkg.scripts.keys, undefined, "the signing keys are the admin command line's too (sso-admin keys)");
  t.equal(pkg.scripts.admin, 'node --import tsx src/cli/admin.ts');

  const store = await adminStore(t, { forChildren: true });
  const npm = (args: string[]) =>
    collect(
      spawn('npm', ['run', '--silent', 'admin', '--', ...args], {
        cwd: PROJECT_DIR,
        env: childEnv({ LOG_LEVEL: 'warn', ...store.env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  const added = parseRun(await npm(['rules', 'add', '--kind', 'network', '--value', '203.0.113.0/24', '--effect', 'block', '--json']));
  const rule = json<{ id: string }>(added);
  const listed = parseRun(await npm(['rules', 'list']));
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, new RegExp(`^id +kind +value +effect +created +note\\n${rule.id} +network +203\\.0\\.113\\.0/24 +block +`));
});
