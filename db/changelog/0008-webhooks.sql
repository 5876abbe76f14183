--liquibase formatted sql

--changeset bothy:0008-webhooks splitStatements:false
--comment: the outgoing webhooks: subscriptions (target, filter, secrets with a rotation window, ordering, rate limit, state) and every delivery attempt
CREATE TABLE webhook_subscriptions (
  id                          uuid        NOT NULL,
  url                         text        NOT NULL,
  event_types                 text[]      NOT NULL,
  secret                      text        NOT NULL,
  previous_secret             text        NULL,
  previous_secret_expires_at  timestamptz NULL,
  ordered                     boolean     NOT NULL,
  rate_limit                  integer     NOT NULL,
  state                       text        NOT NULL,
  disabled_reason             text        NULL,
  last_delivered_seq          bigint      NOT NULL DEFAULT 0,
  held_seq                    bigint      NULL,
  generation                  integer     NOT NULL DEFAULT 0,
  failing_since               timestamptz NULL,
  rate_window_started_at      timestamptz NULL,
  rate_window_count           integer     NOT NULL DEFAULT 0,
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL,
  CONSTRAINT webhook_subscriptions_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_subscriptions_url_not_blank CHECK (url <> ''),
  CONSTRAINT webhook_subscriptions_event_types_not_empty CHECK (cardinality(event_types) >= 1),
  CONSTRAINT webhook_subscriptions_secret_format CHECK (secret LIKE 'whsec\_%'),
  CONSTRAINT webhook_subscriptions_previous_secret_window CHECK (
    (previous_secret IS NULL) = (previous_secret_expires_at IS NULL)),
  CONSTRAINT webhook_subscriptions_rate_limit_positive CHECK (rate_limit > 0),
  CONSTRAINT webhook_subscriptions_state_known CHECK (state IN ('active', 'disabled')),
  CONSTRAINT webhook_subscriptions_reason_known CHECK (
    disabled_reason IN ('gap', 'failing', 'gone', 'manual')),
  CONSTRAINT webhook_subscriptions_reason_when_disabled CHECK (
    (state = 'disabled') = (disabled_reason IS NOT NULL)),
  CONSTRAINT webhook_subscriptions_seqs_not_negative CHECK (
    last_delivered_seq >= 0 AND (held_seq IS NULL OR held_seq > 0)),
  CONSTRAINT webhook_subscriptions_rate_window_count_not_negative CHECK (rate_window_count >= 0)
);
COMMENT ON TABLE webhook_subscriptions IS 'Outgoing webhook subscriptions: where matching events are delivered, signed with the secret (and the previous one until its expiry).';
-- The consumer's read per event: the subscriptions whose filter holds the event's type.
CREATE INDEX webhook_subscriptions_event_types ON webhook_subscriptions USING gin (event_types);

CREATE TABLE webhook_attempts (
  id               uuid        NOT NULL,
  subscription_id  uuid        NOT NULL,
  event_seq        bigint      NOT NULL,
  event_id         uuid        NOT NULL,
  attempt          integer     NOT NULL,
  attempted_at     timestamptz NOT NULL,
  duration_ms      bigint      NOT NULL,
  outcome          text        NOT NULL,
  response_status  integer     NULL,
  response_body    text        NULL,
  error_kind       text        NULL,
  CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_attempts_subscription_fkey FOREIGN KEY (subscription_id)
    REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  CONSTRAINT webhook_attempts_event_seq_positive CHECK (event_seq > 0),
  CONSTRAINT webhook_attempts_attempt_positive CHECK (attempt > 0),
  CONSTRAINT webhook_attempts_duration_not_negative CHECK (duration_ms >= 0),
  CONSTRAINT webhook_attempts_outcome_known CHECK (
    outcome IN ('delivered', 'gone', 'retry_after', 'failed'))
);
COMMENT ON TABLE webhook_attempts IS 'Every delivery attempt of an outgoing webhook, kept for webhooks.attemptRetention.';
-- Listing a subscription's attempts, newest first, optionally of one event.
CREATE INDEX webhook_attempts_subscription ON webhook_attempts (subscription_id, event_seq, attempted_at);
-- The retention job: attempts by time.
CREATE INDEX webhook_attempts_attempted_at ON webhook_attempts (attempted_at);

ALTER TABLE webhook_subscriptions OWNER TO bothy_owner;
ALTER TABLE webhook_attempts OWNER TO bothy_owner;
REVOKE ALL ON webhook_subscriptions FROM PUBLIC;
REVOKE ALL ON webhook_attempts FROM PUBLIC;
-- DELETE on subscriptions for the API's delete (its attempts go with it).
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_subscriptions TO bothy_app;
-- No UPDATE: an attempt is a record of what happened. DELETE for the retention job.
GRANT SELECT, INSERT, DELETE ON webhook_attempts TO bothy_app;
