-- Webhooks (issue 20): subscriptions an admin makes (a URL, the event types it wants, a secret that signs each
-- delivery) and the deliveries the provider owes them, written in the transaction of the change they report and sent
-- by src/jobs/webhook-job.ts. The secret is sealed (src/domain/keys/sealed-secrets.ts, purpose webhook-secret).
CREATE TABLE webhook_subscriptions (
  id                    text PRIMARY KEY,
  url                   text NOT NULL,
  event_types           text[] NOT NULL,
  secret_sealed         jsonb NOT NULL,
  description           text,
  enabled               boolean NOT NULL DEFAULT true,
  -- Paused after failing again and again (src/domain/webhooks/delivery-policy.ts): nothing is sent until an admin
  -- resumes it; events are still queued meanwhile. The reason is the last answer or error, never a secret.
  paused_at             timestamptz,
  pause_reason          text,
  consecutive_failures  integer NOT NULL DEFAULT 0,
  failing_since         timestamptz,
  last_success_at       timestamptz,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL
);

-- One row per event and subscription. `id` is the delivery's stable id (a header and a member of the body, the same on
-- every retry); `seq` orders a subscription's deliveries: only its oldest pending one is ever sent.
CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq              bigint GENERATED ALWAYS AS IDENTITY,
  subscription_id  text NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  event_id         uuid NOT NULL,
  event_type       text NOT NULL,
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  last_status      integer,
  last_error       text,
  created_at       timestamptz NOT NULL,
  delivered_at     timestamptz
);
-- The head of each subscription's queue; a subscription's listing; the purge of delivered rows.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (subscription_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, seq);
CREATE INDEX webhook_deliveries_delivered_idx ON webhook_deliveries (delivered_at) WHERE delivered_at IS NOT NULL;
