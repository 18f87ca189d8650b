-- The management API (issue 20): the audit trail of admin changes, and the creates an Idempotency-Key replays.
--
-- One admin_audit_records row per change, written in the transaction of the change itself (src/domain/admin/audit.ts),
-- by the command line and the API alike. actor_kind is 'client' (actor_id its client_id), 'person' (a user id),
-- 'cli' (the OS user name) or 'system' (code in the process itself); origin is the request's IP address, null for
-- the command line. changes lists the fields changed with their new values; a secret's name appears with no value.
-- The rows are not tied to their target by a foreign key: the record of a deletion outlives what was deleted.
CREATE TABLE admin_audit_records (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at  timestamptz NOT NULL,
  actor_kind   text NOT NULL,
  actor_id     text NOT NULL,
  origin       text,
  event        text NOT NULL,
  target_type  text NOT NULL,
  target_id    text NOT NULL,
  changes      jsonb NOT NULL
);
CREATE INDEX admin_audit_records_target_idx ON admin_audit_records (target_type, target_id, id);
CREATE INDEX admin_audit_records_actor_idx ON admin_audit_records (actor_kind, actor_id, id);
CREATE INDEX admin_audit_records_occurred_at_idx ON admin_audit_records (occurred_at);

-- A create sent with an Idempotency-Key: the key is the principal's own (principal names the client or person),
-- request_hash the sha256 of method, path and body; status and response are null while the first request runs.
-- The stored response never holds a secret (src/http/admin-api/idempotency.ts).
CREATE TABLE admin_idempotency_keys (
  principal     text NOT NULL,
  key           text NOT NULL,
  request_hash  text NOT NULL,
  status        integer,
  response      jsonb,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  PRIMARY KEY (principal, key)
);
CREATE INDEX admin_idempotency_keys_expires_at_idx ON admin_idempotency_keys (expires_at);
