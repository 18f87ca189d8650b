// Listing, adding and deleting the admin risk rules by hand (sso-admin rules): rules.ts's checks and writes, with
// the refusal and the log line every admin action has.
import { pageRiskRuleRows } from '../../storage/risk.js';
import type { RiskRuleRow } from '../../storage/schema.js';
import { inAdminTransaction, logAdminAction, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { addRiskRule, removeRiskRule, riskRule, riskRules, type RiskRule } from './rules.js';

export interface StoredRiskRule extends RiskRule {
  id: string;
  createdAt: Date;
}

const rowToRule = (row: RiskRuleRow): StoredRiskRule => ({
  id: row.id,
  kind: row.kind,
  value: row.value,
  effect: row.effect,
  note: row.note,
  createdAt: row.created_at,
});

/** Every rule, oldest first. */
export async function listRules(ctx: AdminContext): Promise<StoredRiskRule[]> {
  return (await riskRules(ctx.db)).map(rowToRule);
}

/** A page of the rules of this kind and effect (each when given), by id, after `after` (the management API's list). */
export async function listRulePage(
  ctx: AdminContext,
  filter: { kind?: string | undefined; effect?: string | undefined },
  after: string | undefined,
  limit: number,
): Promise<StoredRiskRule[]> {
  return (await pageRiskRuleRows(ctx.db, filter, after, limit)).map(rowToRule);
}

export async function showRule(ctx: AdminContext, id: string): Promise<StoredRiskRule> {
  const row = await riskRule(ctx.db, id);
  if (!row) throw new AdminError(`no rule "${id}" (rules list shows them)`, 'not_found');
  return rowToRule(row);
}

/** Adds a rule checked by parseRiskRule, or changes the effect and note of the rule with its kind and value. */
export async function addRule(ctx: AdminContext, rule: RiskRule): Promise<{ rule: StoredRiskRule; created: boolean }> {
  const { row, created } = await inAdminTransaction(ctx, async (trx) => {
    const added = await addRiskRule(trx, rule, ctx.clock());
    const { row: r } = added;
    await logAdminAction(ctx, trx, {
      event: added.created ? 'admin.rule.created' : 'admin.rule.updated',
      target: { type: 'rule', id: r.id },
      changes: { kind: r.kind, value: r.value, effect: r.effect, note: r.note },
      log: { ruleId: r.id, kind: r.kind, value: r.value, effect: r.effect },
    });
    return added;
  });
  return { rule: rowToRule(row), created };
}

/** Deletes the rule; the next sign-in it would have decided is scored like any other. */
export async function deleteRule(ctx: AdminContext, id: string): Promise<StoredRiskRule> {
  const rule = await showRule(ctx, id);
  return inAdminTransaction(ctx, async (trx) => {
    if (!(await removeRiskRule(trx, rule.id))) throw new AdminError(`no rule "${id}" (rules list shows them)`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.rule.deleted',
      target: { type: 'rule', id: rule.id },
      log: { ruleId: rule.id, kind: rule.kind, value: rule.value, effect: rule.effect },
    });
    return rule;
  });
}
