-- A network rule must be an address or network PostgreSQL can read: refused when stored rather than failing every
-- sign-in that reads the rules. CASE, because an OR would not promise to skip the cast for other kinds of rule.
ALTER TABLE risk_rules ADD CONSTRAINT risk_rules_network_is_inet
  CHECK (CASE WHEN kind = 'network' THEN value::inet IS NOT NULL ELSE true END);
