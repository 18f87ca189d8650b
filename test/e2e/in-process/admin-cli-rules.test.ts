// `sso-admin rules ...` as an operator runs it, on a database of the test's own, in this process (see
// admin-cli-clients.test.ts): every verb, its table and --json shapes, its refusals and exit codes, its log lines.
import t from 'tap';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';

interface RuleJson {
  id: string;
  kind: string;
  value: string;
  effect: string;
  note: string | null;
  created_at: string;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const DEVICE = '0F6C6E0A-8C4B-4D43-9E0C-1B2A3C4D5E6F';

t.test(
  'rules list says when there are none; rules add takes each kind, normalised; list shows them oldest first, as a table and as JSON',
  async (t) => {
    const store = await adminStore(t);
    const empty = await runAdmin(['rules', 'list'], store.env);
    t.equal(empty.code, 0, empty.stderr);
    t.equal(empty.stdout, 'no risk rules\n');
    t.same(json(await runAdmin(['rules', 'list', '--json'], store.env)), []);

    const network = await runAdmin(
      ['rules', 'add', '--kind', 'network', '--value', '2001:DB8::/48', '--effect', 'block', '--note', ' scanner '],
      store.env,
    );
    t.equal(network.code, 0, network.stderr);
    const [, networkId] = /^rule (\S+) added: block network 2001:db8::\/48\n$/.exec(network.stdout) ?? [];
    t.match(networkId, ID);
    t.same(events(network), ['admin.rule.created']);
    t.match(
      network.logs.find((l) => l.event === 'admin.rule.created'),
      { ruleId: networkId, kind: 'network', value: '2001:db8::/48', effect: 'block', actor: String, msg: 'admin action' },
    );

    const username = json<RuleJson & { created: boolean }>(
      await runAdmin(['rules', 'add', '--kind', 'username', '--value', ' Alice ', '--effect', 'allow', '--json'], store.env),
    );
    t.match(username, { id: ID, kind: 'username', value: 'alice', effect: 'allow', note: null, created_at: TIME, created: true });
    t.same(Object.keys(username).sort(), ['created', 'created_at', 'effect', 'id', 'kind', 'note', 'value']);

    const device = json<RuleJson & { created: boolean }>(
      await runAdmin(['rules', 'add', '--kind', 'device', '--value', DEVICE, '--effect', 'block', '--json'], store.env),
    );
    t.match(device, { kind: 'device', value: DEVICE.toLowerCase(), effect: 'block', created: true });

    const table = await runAdmin(['rules', 'list'], store.env);
    t.equal(table.code, 0, table.stderr);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    t.match(header, /^id +kind +value +effect +created +note$/);
    t.same(
      rows.map((r) => r.split(/ {2,}/)),
      [
        [networkId, 'network', '2001:db8::/48', 'block', rows[0]!.split(/ {2,}/)[4], 'scanner'],
        [username.id, 'username', 'alice', 'allow', username.created_at, '-'],
        [device.id, 'device', DEVICE.toLowerCase(), 'block', device.created_at, '-'],
      ],
    );
    t.same(events(table), [], 'reading is no action');

    const listed = json<RuleJson[]>(await runAdmin(['rules', 'list', '--json'], store.env));
    t.same(
      listed.map((r) => r.id),
      [networkId, username.id, device.id],
    );
    t.same(listed[0], {
      id: networkId,
      kind: 'network',
      value: '2001:db8::/48',
      effect: 'block',
      note: 'scanner',
      created_at: listed[0]!.created_at,
    });
    t.match(listed[0]!.created_at, TIME);
  },
);

t.test('rules add with the kind and value of a rule changes its effect and note, keeping its id and creation time', async (t) => {
  const store = await adminStore(t);
  const { created, ...first } = json<RuleJson & { created: boolean }>(
    await runAdmin(
      ['rules', 'add', '--kind', 'network', '--value', '203.0.113.0/24', '--effect', 'block', '--note', 'scanner', '--json'],
      store.env,
    ),
  );
  t.equal(created, true);

  const again = await runAdmin(['rules', 'add', '--kind', 'network', '--value', '203.0.113.0/24', '--effect', 'allow'], store.env);
  t.equal(again.code, 0, again.stderr);
  t.equal(again.stdout, `rule ${first.id} updated: allow network 203.0.113.0/24\n`);
  t.same(events(again), ['admin.rule.updated']);
  t.match(
    again.logs.find((l) => l.event === 'admin.rule.updated'),
    { ruleId: first.id, effect: 'allow' },
  );

  const listed = json<RuleJson[]>(await runAdmin(['rules', 'list', '--json'], store.env));
  t.same(listed, [{ ...first, effect: 'allow', note: null }], 'one rule, its id and creation time kept');
});

t.test(
  'rules add refuses a bad kind, effect or value with exit code 2 and one line naming every problem, before opening the database',
  async (t) => {
    // DATA_DIR names a file: opening a database there would fail, and differently.
    const env = { DATA_DIR: '/dev/null' };
    const cases: Array<[string[], string]> = [
      [['--kind', 'country', '--value', 'XX', '--effect', 'block'], 'kind must be one of device, network, username'],
      [
        ['--kind', 'network', '--value', '203.0.113.7/24', '--effect', 'deny'],
        'effect must be one of allow, block; "203.0.113.7/24" has bits set after the /24 prefix: did you mean 203.0.113.0/24?',
      ],
      [
        ['--kind', 'device', '--value', 'my-laptop', '--effect', 'block'],
        'a device rule\'s value is a device id (a UUID), not "my-laptop"',
      ],
    ];
    const runs = await Promise.all(cases.map(([options]) => runAdmin(['rules', 'add', ...options, '--json'], env)));
    runs.forEach((refused, i) => {
      t.equal(refused.code, 2, cases[i]![0].join(' '));
      t.equal(refused.stdout, '');
      t.equal(refused.stderr, `sso-admin rules add: ${cases[i]![1]} (sso-admin rules add --help)\n`);
    });
  },
);

t.test(
  'rules delete refuses without --yes when stdin is not a terminal, refuses an unknown id with exit code 1, and deletes with --yes',
  async (t) => {
    const store = await adminStore(t);
    const block = json<RuleJson>(
      await runAdmin(['rules', 'add', '--kind', 'username', '--value', 'mallory', '--effect', 'block', '--json'], store.env),
    );
    const { created, ...allow } = json<RuleJson & { created: boolean }>(
      await runAdmin(['rules', 'add', '--kind', 'network', '--value', '192.0.2.1', '--effect', 'allow', '--json'], store.env),
    );
    t.same([created, allow.value], [true, '192.0.2.1/32'], 'one address is a one-address block');

    const refused = await runAdmin(['rules', 'delete', block.id], store.env, { input: 'y\n' });
    t.equal(refused.code, 2);
    t.equal(refused.stdout, '');
    t.equal(
      refused.stderr,
      'sso-admin rules delete: stdin is not a terminal, so nobody can confirm: pass --yes to do it without asking (sso-admin rules delete --help)\n',
    );

    for (const unknownId of ['6f1c0000-0000-4000-8000-000000000000', 'not-a-rule-id']) {
      const unknown = await runAdmin(['rules', 'delete', unknownId, '--yes', '--json'], store.env);
      t.equal(unknown.code, 1, unknownId);
      t.equal(unknown.stdout, '');
      t.equal(unknown.message, `sso-admin rules delete: no rule "${unknownId}" (rules list shows them)`);
      t.same(events(unknown), []);
    }

    const deleted = await runAdmin(['rules', 'delete', block.id, '--yes'], store.env);
    t.equal(deleted.code, 0, deleted.stderr);
    t.equal(deleted.stdout, `rule ${block.id} deleted: block username mallory\n`);
    t.same(events(deleted), ['admin.rule.deleted']);
    t.match(
      deleted.logs.find((l) => l.event === 'admin.rule.deleted'),
      { ruleId: block.id, kind: 'username', value: 'mallory', effect: 'block' },
    );

    const asJson = await runAdmin(['rules', 'delete', allow.id.toUpperCase(), '-y', '--json'], store.env);
    t.same(json(asJson), { ...allow, deleted: true }, 'an id in any case');

    t.same(json(await runAdmin(['rules', 'list', '--json'], store.env)), []);
  },
);

t.test("--help names the rules verbs and each verb's options, without opening the database", async (t) => {
  // DATA_DIR names a file: opening a database there would fail.
  const env = { DATA_DIR: '/dev/null' };
  const noun = await runAdmin(['rules', '--help'], env);
  t.equal(noun.code, 0);
  t.match(noun.stdout, /^usage: sso-admin rules <verb>/);
  t.match(noun.stdout, /\n {2}list +List every risk rule/);
  t.match(noun.stdout, /\n {2}add +Add a rule/);
  t.match(noun.stdout, /\n {2}delete +Delete a rule/);

  const add = await runAdmin(['rules', 'add', '--help'], env);
  t.equal(add.code, 0);
  t.match(add.stdout, /^usage: sso-admin rules add --kind device\|network\|username --value VALUE --effect allow\|block \[options\]\n/);
  t.match(add.stdout, '--note TEXT');
  t.notMatch(add.stdout, '--yes');

  const del = await runAdmin(['rules', 'delete', '-h'], env);
  t.equal(del.code, 0);
  t.match(del.stdout, /^usage: sso-admin rules delete <id> \[options\]\n/);
  t.match(del.stdout, 'Asks for confirmation first (or --yes).');
  t.match(del.stdout, /-y, --yes +do it without asking/);
  t.equal(noun.stderr + add.stderr + del.stderr, '');
});
