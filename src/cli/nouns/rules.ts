// sso-admin rules list|add|delete: the admin risk rules that allow or block a sign-in outright
// (src/domain/risk/rules.ts checks them; src/domain/risk/rule-admin.ts writes and logs them).
import { addRule, deleteRule, listRules, showRule, type StoredRiskRule } from '../../domain/risk/rule-admin.js';
import { MAX_RULE_NOTE_LENGTH, parseRiskRule, RULE_EFFECTS, RULE_KINDS, type RiskRule } from '../../domain/risk/rules.js';
import { ruleJson } from '../../domain/admin/representations.js';
import { UsageError, verb, type Noun } from '../command.js';
import { iso } from '../output.js';

const describe = (r: StoredRiskRule) => `${r.effect} ${r.kind} ${r.value}`;

export const rules: Noun = {
  name: 'rules',
  summary: 'risk rules that allow or block a sign-in outright, by device, network or username',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every risk rule, oldest first.',
      async run(session, input) {
        const all = await listRules(session.ctx);
        if (input.json) return session.out.json(all.map(ruleJson));
        session.out.table(
          ['id', 'kind', 'value', 'effect', 'created', 'note'],
          all.map((r) => [r.id, r.kind, r.value, r.effect, iso(r.createdAt), r.note ?? '-']),
          'no risk rules',
        );
      },
    }),
    verb({
      name: 'add',
      summary: 'Add a rule, or change the effect and note of the rule with the same kind and value.',
      options: {
        kind: {
          type: 'string',
          value: RULE_KINDS.join('|'),
          required: true,
          description: 'what the rule matches: a device, a network or a username',
        },
        value: {
          type: 'string',
          value: 'VALUE',
          required: true,
          description: 'a device id (a UUID), a CIDR block or one address, or a username',
        },
        effect: {
          type: 'string',
          value: RULE_EFFECTS.join('|'),
          required: true,
          description: 'block refuses the sign-in, allow lets it in without a second factor',
        },
        note: { type: 'string', value: 'TEXT', description: `why the rule is there (at most ${MAX_RULE_NOTE_LENGTH} characters)` },
      },
      notes: `A rule decides a sign-in whatever its score: block refuses it with the message of a wrong password, allow
lets it in without a second factor; block wins over allow. Every instance reads the rules in the sign-in
statement itself, so a change applies to the next attempt. A network value is stored in canonical form, and a
block with bits set after its prefix is refused with the block probably meant; a username rule matches in any
case, also when that user signs in with their email.`,
      prepare(input) {
        const { kind, value, effect, note } = input.options;
        const checked = parseRiskRule({ kind, value, effect, note });
        if ('problems' in checked) throw new UsageError(checked.problems.join('; '));
        return checked.rule;
      },
      async run(session, input, rule: RiskRule) {
        const { rule: stored, created } = await addRule(session.ctx, rule);
        if (input.json) return session.out.json({ ...ruleJson(stored), created });
        session.out.line(`rule ${stored.id} ${created ? 'added' : 'updated'}: ${describe(stored)}`);
      },
    }),
    verb({
      name: 'delete',
      summary: 'Delete a rule; the sign-ins it decided are scored like any other from the next attempt.',
      args: [{ name: 'id', description: 'the rule (rules list shows the ids)' }],
      destructive: true,
      async run(session, input) {
        const id = input.args.id!;
        const rule = await showRule(session.ctx, id);
        await session.confirm(`Delete rule ${rule.id} (${describe(rule)})?`);
        const deleted = await deleteRule(session.ctx, rule.id);
        if (input.json) return session.out.json({ ...ruleJson(deleted), deleted: true });
        session.out.line(`rule ${deleted.id} deleted: ${describe(deleted)}`);
      },
    }),
  ],
};
