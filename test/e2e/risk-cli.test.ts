// `npm run risk` is the admin command line under its old name: `npm run risk -- rules ...` runs `sso-admin rules ...`
// (test/e2e/admin-cli-rules.test.ts tests the verbs themselves).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { adminStore, json, parseRun } from '../helpers/admin-cli.js';
import { childEnv, collect, PROJECT_DIR } from '../helpers/child-process.js';

t.test('npm run risk -- rules list still lists the rules, through the admin command line', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.risk, pkg.scripts.admin, 'the same command as npm run admin');

  const store = await adminStore(t);
  const npm = (args: string[]) =>
    collect(spawn('npm', ['run', '--silent', 'risk', '--', ...args], { cwd: PROJECT_DIR, env: childEnv({ LOG_LEVEL: 'warn', ...store.env }), stdio: ['ignore', 'pipe', 'pipe'] }));
  const added = parseRun(await npm(['rules', 'add', '--kind', 'network', '--value', '203.0.113.0/24', '--effect', 'block', '--json']));
  const rule = json<{ id: string }>(added);
  const listed = parseRun(await npm(['rules', 'list']));
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, new RegExp(`^id +kind +value +effect +created +note\\n${rule.id} +network +203\\.0\\.113\\.0/24 +block +`));
});
