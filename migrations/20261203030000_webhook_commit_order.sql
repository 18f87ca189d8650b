-- Webhook deliveries in commit order, and a wake-up when one is queued (issue 38).
--
-- `seq` is taken when a row is inserted, so a transaction that queued its event first but commits last had its event
-- sent before events that committed earlier, or after events that committed later, depending on when the job looked.
-- `position` is taken at commit instead: a deferred trigger runs as the transaction commits, takes a transaction
-- advisory lock and numbers the transaction's rows from a sequence. The lock is released only once the commit is
-- visible to others (PostgreSQL releases a transaction's locks after it has left the proc array), so the next
-- transaction to number its rows does so after this one is visible: positions follow commit order, and a row with a
-- lower position than one the job can see is already visible itself (or rolled back). So the job may send the
-- lowest visible position of a subscription without ever overtaking a transaction still open. This is the guarantee
-- NOTIFY gives its own queue ("queue entries appear in commit order", src/backend/commands/async.c); the wait is
-- only among transactions that queue webhook events, at their commit, and only while one commits.
-- (A per-row xid8 read below pg_snapshot_xmin would never overtake either, but it orders by when a transaction got its
-- id, not when it committed, and holds every event back behind any long transaction of the whole cluster.)
-- On PGlite there is one session, so transactions are one after another and the order is insert order anyway.
ALTER TABLE webhook_deliveries ADD COLUMN position bigint;

CREATE SEQUENCE webhook_delivery_position AS bigint;
UPDATE webhook_deliveries SET position = seq;
SELECT setval('webhook_delivery_position', COALESCE((SELECT max(seq) FROM webhook_deliveries), 0) + 1, false);

-- The NOTIFY is sent at commit as well (and only if the transaction commits), naming the subscription; the same one
-- several times in one transaction is one notification. src/jobs/webhook-job.ts listens on this channel.
CREATE FUNCTION webhook_delivery_committing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('sso.webhook_deliveries.position'));
  UPDATE webhook_deliveries SET position = nextval('webhook_delivery_position') WHERE id = NEW.id;
  PERFORM pg_notify('sso_webhook_deliveries', NEW.subscription_id);
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER webhook_deliveries_commit_order
  AFTER INSERT ON webhook_deliveries DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION webhook_delivery_committing();

-- The head of each subscription's queue, now by position.
CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries (subscription_id, position) WHERE status = 'pending';
DROP INDEX webhook_deliveries_pending_idx;
