// npm run risk -- rules list | add | delete: the admin risk rules, over the same domain functions as the seed file.
// Every instance reads the rules in the sign-in statement itself, so a change applies to the next attempt.
import { parseArgs } from 'node:util';
import { addRiskRule, parseRiskRule, removeRiskRule, riskRules, RULE_EFFECTS, RULE_KINDS } from '../src/domain/risk/rules.js';
import type { RiskRuleRow } from '../src/storage/schema.js';
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from '../src/runtime.js';

const USAGE = `usage: npm run risk -- rules list [--json]
       npm run risk -- rules add --kind ${RULE_KINDS.join('|')} --value VALUE --effect ${RULE_EFFECTS.join('|')} [--note TEXT] [--json]
       npm run risk -- rules delete ID [--json]

A rule decides a sign-in outright, whatever its score: block refuses it (the person sees the message of a wrong
password), allow lets it in without a second factor. Block wins over allow.
  device    a device id (a UUID, as the security events and the account page show it)
  network   a CIDR block (203.0.113.0/24, 2001:db8::/32) or one address
  username  a username (any case); it also applies when that user signs in with their email
Adding a rule with the kind and value of an existing one changes its effect and note.
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
    options: {
      kind: { type: 'string' },
      value: { type: 'string' },
      effect: { type: 'string' },
      note: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (err) {
  usage((err as Error).message);
}
const { positionals, values } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const [topic, command, ...rest] = positionals;
if (topic !== 'rules' || !['list', 'add', 'delete'].includes(command ?? '')) usage('expected: rules list, rules add or rules delete');
const ruleOptions = values.kind !== undefined || values.value !== undefined || values.effect !== undefined || values.note !== undefined;
if (command !== 'add' && ruleOptions) usage(`rules ${command} takes no --kind, --value, --effect or --note`);
if (command === 'delete' ? rest.length !== 1 : rest.length !== 0) usage(command === 'delete' ? 'rules delete takes one rule id' : `rules ${command} takes no arguments`);

let toAdd;
if (command === 'add') {
  const checked = parseRiskRule({ kind: values.kind, value: values.value, effect: values.effect, note: values.note });
  if ('problems' in checked) usage(checked.problems.join('\n'));
  toAdd = checked.rule;
}

const json = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const view = (r: RiskRuleRow) => ({ id: r.id, kind: r.kind, value: r.value, effect: r.effect, note: r.note, created_at: iso(r.created_at) });

const config = loadRuntimeConfig();
const logger = createLogger(config, 2);
const database = await openMigratedDatabase(config, logger);
try {
  if (command === 'list') {
    const rules = (await riskRules(database.db)).map(view);
    if (values.json) json(rules);
    else if (rules.length === 0) process.stdout.write('no risk rules\n');
    else {
      const rows = [['id', 'kind', 'value', 'effect', 'created', 'note'], ...rules.map((r) => [r.id, r.kind, r.value, r.effect, r.created_at, r.note ?? ''])];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const row of rows) process.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
    }
  } else if (command === 'add') {
    const { row, created } = await addRiskRule(database.db, toAdd!, new Date());
    if (values.json) json({ ...view(row), created });
    else process.stdout.write(`${created ? 'added' : 'updated'} rule ${row.id}: ${row.effect} ${row.kind} ${row.value}\n`);
  } else {
    const id = rest[0]!;
    const deleted = await removeRiskRule(database.db, id);
    if (values.json) json({ id, deleted });
    else process.stdout.write(deleted ? `deleted rule ${id}\n` : '');
    if (!deleted) {
      process.stderr.write(`no rule with id "${id}" (npm run risk -- rules list shows them)\n`);
      process.exitCode = 1;
    }
  }
} catch (err) {
  logger.fatal({ err }, `risk rules ${command} failed`);
  process.exitCode = 1;
} finally {
  await database.close();
}
