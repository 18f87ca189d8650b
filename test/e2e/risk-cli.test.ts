// `npm run risk -- rules ...` (scripts/risk.ts) as an admin runs it, in a child process, on a store of its own.
import t from 'tap';
import { runTs } from '../helpers/child-process.js';
import { keyStore } from '../helpers/keys.js';

const run = (args: string[], env: Record<string, string>) => runTs('scripts/risk.ts', args, { LOG_LEVEL: 'warn', ...env });

interface ListedRule {
  id: string;
  kind: string;
  value: string;
  effect: string;
  note: string | null;
  created_at: string;
}

t.test('rules add, list (table and --json), add again to change, and delete', async (t) => {
  const env = await keyStore(t);
  const added = await run(['rules', 'add', '--kind', 'network', '--value', '2001:DB8::/48', '--effect', 'block', '--note', 'scanner'], env);
  t.equal(added.code, 0, added.stderr);
  const match = /^added rule ([0-9a-f-]{36}): block network 2001:db8::\/48\n$/.exec(added.stdout);
  t.ok(match, added.stdout);
  const id = match![1]!;

  const changed = await run(['rules', 'add', '--kind', 'network', '--value', '2001:db8::/48', '--effect', 'allow', '--json'], env);
  t.equal(changed.code, 0, changed.stderr);
  t.match(JSON.parse(changed.stdout), { id, kind: 'network', value: '2001:db8::/48', effect: 'allow', note: null, created: false });

  const table = await run(['rules', 'list'], env);
  t.equal(table.code, 0, table.stderr);
  const [header, row, ...more] = table.stdout.trimEnd().split('\n');
  t.match(header, /^id +kind +value +effect +created +note$/);
  t.match(row, new RegExp(`^${id} +network +2001:db8::/48 +allow +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));
  t.same(more, []);

  const listed = await run(['rules', 'list', '--json'], env);
  t.match(JSON.parse(listed.stdout) as ListedRule[], [{ id, kind: 'network', value: '2001:db8::/48', effect: 'allow' }]);

  const deleted = await run(['rules', 'delete', id], env);
  t.equal(deleted.code, 0, deleted.stderr);
  t.equal(deleted.stdout, `deleted rule ${id}\n`);
  const again = await run(['rules', 'delete', id, '--json'], env);
  t.equal(again.code, 1, 'deleting a rule that is not there fails');
  t.same(JSON.parse(again.stdout), { id, deleted: false });
  t.match(again.stderr, `no rule with id "${id}"`);
});

t.test('a bad kind, effect or CIDR is refused with exit code 2, naming the problem, and nothing is written', async (t) => {
  const env = await keyStore(t);
  const bad = await run(['rules', 'add', '--kind', 'network', '--value', '203.0.113.7/24', '--effect', 'deny'], env);
  t.equal(bad.code, 2);
  t.match(bad.stderr, 'effect must be one of allow, block');
  t.match(bad.stderr, 'did you mean 203.0.113.0/24?');
  t.match(bad.stderr, /^usage: npm run risk/m);
  const list = await run(['rules', 'list', '--json'], env);
  t.equal(list.code, 0, list.stderr);
  t.same(JSON.parse(list.stdout), []);
});
