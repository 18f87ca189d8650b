// The seed file's risk_rules section: checked like the command line, upserted by kind and value in the seed's
// one transaction, idempotent.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed, SeedError } from '../../src/domain/admin/seed.js';
import type { Db } from '../../src/storage/database.js';
import { testConfig } from '../helpers/app.js';
import { PROJECT_DIR } from '../helpers/child-process.js';
import { createTestDatabase } from '../helpers/database.js';

const passwords = new PasswordHasher(testConfig().argon2);
const database = await createTestDatabase();
t.teardown(() => database.drop());

const RULES = [
  { kind: 'network', value: '203.0.113.0/24', effect: 'block', note: 'scanner' },
  { kind: 'username', value: 'Mallory', effect: 'block' },
  { kind: 'network', value: '2001:DB8::/48', effect: 'allow', note: 'office' },
];

async function freshDb(_t: Test): Promise<Db> {
  await sql`truncate clients, users, risk_rules cascade`.execute(database.handle.db);
  return database.handle.db;
}

const allRules = (db: Db) =>
  db.selectFrom('risk_rules').select(['kind', 'value', 'effect', 'note']).orderBy('kind').orderBy('value').execute();

t.test('a seed with risk_rules creates them in canonical form and reports them', async (t) => {
  const db = await freshDb(t);
  const report = await applySeed(db, passwords, parseSeed({ clients: [], users: [], risk_rules: RULES }));
  t.same(report.risk_rules, { created: 3, updated: 0, unchanged: 0 });
  t.same(await allRules(db), [
    { kind: 'network', value: '2001:db8::/48', effect: 'allow', note: 'office' },
    { kind: 'network', value: '203.0.113.0/24', effect: 'block', note: 'scanner' },
    { kind: 'username', value: 'mallory', effect: 'block', note: null },
  ]);
});

t.test('seeding the same rules again changes nothing; a changed effect or note updates the rule in place', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed({ risk_rules: RULES }));
  const ids = await db.selectFrom('risk_rules').select(['id', 'value']).orderBy('value').execute();
  t.same((await applySeed(db, passwords, parseSeed({ risk_rules: RULES }))).risk_rules, { created: 0, updated: 0, unchanged: 3 });
  const changed = [{ ...RULES[0]!, effect: 'allow' }, { ...RULES[1]!, note: 'known attacker' }, RULES[2]!];
  t.same((await applySeed(db, passwords, parseSeed({ risk_rules: changed }))).risk_rules, { created: 0, updated: 2, unchanged: 1 });
  t.match(await allRules(db), [
    { value: '2001:db8::/48' },
    { value: '203.0.113.0/24', effect: 'allow' },
    { value: 'mallory', note: 'known attacker' },
  ]);
  t.same(await db.selectFrom('risk_rules').select(['id', 'value']).orderBy('value').execute(), ids, 'the same rows, ids kept');
});

t.test('a seed without risk_rules reports none and leaves the existing rules alone', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed({ risk_rules: RULES }));
  const report = await applySeed(db, passwords, parseSeed({ clients: [], users: [] }));
  t.notOk('risk_rules' in report);
  t.equal((await allRules(db)).length, 3);
});

t.test('bad rules are refused with the rest of the file, each problem naming its entry', async (t) => {
  let problems: string[] = [];
  try {
    parseSeed({
      users: [{ username: 'zed', password: 'zed-password-1' }],
      risk_rules: [
        { kind: 'network', value: '203.0.113.9/24', effect: 'block' },
        { kind: 'country', value: 'XX', effect: 'block', reason: 'x' },
        'username mallory',
        { kind: 'username', value: 'MALLORY', effect: 'allow' },
        { kind: 'username', value: 'mallory', effect: 'block' },
      ],
    });
  } catch (err) {
    t.type(err, SeedError);
    problems = (err as SeedError).problems;
  }
  t.same(problems, [
    'risk_rules[0]: "203.0.113.9/24" has bits set after the /24 prefix: did you mean 203.0.113.0/24?',
    'risk_rules[1]: unknown field "reason"',
    'risk_rules[1]: kind must be one of device, network, username',
    'risk_rules[2] must be an object',
    'risk rule "username mallory" appears more than once',
  ]);
  let notArray: string[] = [];
  try {
    parseSeed({ risk_rules: {} });
  } catch (err) {
    notArray = (err as SeedError).problems;
  }
  t.same(notArray, ['"risk_rules" must be an array']);
});

t.test('the shipped seed.example.json has a valid risk_rules section', async (t) => {
  const seed = parseSeed(JSON.parse(await fs.readFile(path.join(PROJECT_DIR, 'seed.example.json'), 'utf8')));
  t.match(seed.risk_rules, [{ kind: 'network', value: '198.51.100.0/24', effect: 'block' }]);
});
