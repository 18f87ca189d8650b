// Admin rules that decide a sign-in outright: allow or block a device (its id), a network (a CIDR block) or a
// username. Checked and written here for the admin command line (sso-admin rules) and the seed file alike.
import type { Db } from '../../storage/database.js';
import { deleteRiskRule, findRiskRule, insertRiskRule, listRiskRules } from '../../storage/risk.js';
import type { RiskRuleRow } from '../../storage/schema.js';
import { MAX_CREDENTIAL_LENGTH } from '../accounts/users.js';
import { normalisedLogin } from './attempt-keys.js';
import { canonicalCidr } from '../../net/cidr.js';

export const RULE_KINDS = ['device', 'network', 'username'] as const;
export const RULE_EFFECTS = ['allow', 'block'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
export type RuleEffect = (typeof RULE_EFFECTS)[number];

export interface RiskRule {
  kind: RuleKind;
  /** A device id, a canonical CIDR block, or a lower-case username. */
  value: string;
  effect: RuleEffect;
  note: string | null;
}

export const MAX_RULE_NOTE_LENGTH = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isRuleId(id: string): boolean {
  return UUID.test(id);
}

/** A rule as given (command-line options or a seed entry), checked and normalised, or every problem with it. */
export function parseRiskRule(raw: {
  kind?: unknown;
  value?: unknown;
  effect?: unknown;
  note?: unknown;
}): { rule: RiskRule } | { problems: string[] } {
  const problems: string[] = [];
  const kind = raw.kind;
  const effect = raw.effect;
  if (!RULE_KINDS.includes(kind as RuleKind)) problems.push(`kind must be one of ${RULE_KINDS.join(', ')}`);
  if (!RULE_EFFECTS.includes(effect as RuleEffect)) problems.push(`effect must be one of ${RULE_EFFECTS.join(', ')}`);
  if (raw.note !== undefined && raw.note !== null && (typeof raw.note !== 'string' || raw.note.length > MAX_RULE_NOTE_LENGTH)) {
    problems.push(`note must be a string of at most ${MAX_RULE_NOTE_LENGTH} characters`);
  }
  let value: string | undefined;
  if (typeof raw.value !== 'string' || raw.value.trim() === '') {
    problems.push('value must be a non-empty string');
  } else if (kind === 'device') {
    // Device ids are what the account page and the security events show (devices.id).
    if (UUID.test(raw.value.trim())) value = raw.value.trim().toLowerCase();
    else problems.push(`a device rule's value is a device id (a UUID), not "${raw.value}"`);
  } else if (kind === 'network') {
    const checked = canonicalCidr(raw.value);
    if ('cidr' in checked) value = checked.cidr;
    else problems.push(checked.problem);
  } else if (kind === 'username') {
    // Matched against the login as typed, normalised the same way (src/domain/risk/attempt-keys.ts).
    value = normalisedLogin(raw.value);
    if (value.length > MAX_CREDENTIAL_LENGTH) problems.push(`a username is at most ${MAX_CREDENTIAL_LENGTH} characters`);
  }
  if (problems.length > 0 || value === undefined) return { problems };
  const note = typeof raw.note === 'string' && raw.note.trim() !== '' ? raw.note.trim() : null;
  return { rule: { kind: kind as RuleKind, value, effect: effect as RuleEffect, note } };
}

/** Adds the rule, or changes the effect and note of the rule with the same kind and value. */
export async function addRiskRule(db: Db, rule: RiskRule, now: Date): Promise<{ row: RiskRuleRow; created: boolean }> {
  const row = await insertRiskRule(db, { ...rule, createdAt: now });
  // An existing rule keeps its creation time: a row stamped with ours is new.
  return { row, created: row.created_at.getTime() === now.getTime() };
}

export function riskRules(db: Db): Promise<RiskRuleRow[]> {
  return listRiskRules(db);
}

/** The rule with this id; undefined when there is none (an id that is not a UUID names no rule). */
export async function riskRule(db: Db, id: string): Promise<RiskRuleRow | undefined> {
  return isRuleId(id) ? findRiskRule(db, id.toLowerCase()) : undefined;
}

/** False when there is no rule with this id (an id that is not a UUID names no rule). */
export async function removeRiskRule(db: Db, id: string): Promise<boolean> {
  if (!isRuleId(id)) return false;
  return deleteRiskRule(db, id.toLowerCase());
}
