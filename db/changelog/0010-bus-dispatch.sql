--liquibase formatted sql

--changeset bothy:0010-bus-dispatch splitStatements:false
--comment: the dispatch of bus consumers: the dedupe table event_deliveries, the dead letters bus_dead_letters, and the worker consumer name bus of the log transport
CREATE TABLE event_deliveries (
  handler    text        NOT NULL,
  event_id   uuid        NOT NULL,
  handled_at timestamptz NOT NULL,
  CONSTRAINT event_deliveries_pkey PRIMARY KEY (handler, event_id),
  CONSTRAINT event_deliveries_handler_shape CHECK (handler ~ '^[a-z][a-z0-9]*\.[a-z][a-z0-9_]*$' AND length(handler) <= 64)
);
CREATE INDEX event_deliveries_handled_at ON event_deliveries (handled_at);
COMMENT ON TABLE event_deliveries IS 'One row per bus handler and event it handled, written in the handler''s own transaction: a second delivery finds the row and skips the handler.';

ALTER TABLE event_deliveries OWNER TO bothy_owner;
REVOKE ALL ON event_deliveries FROM PUBLIC;
-- No UPDATE: a delivery row is a fact. DELETE only for the retention job
-- bus.delivery_retention, past bus.dispatch.deliveryRetention.
GRANT SELECT, INSERT, DELETE ON event_deliveries TO bothy_app;

CREATE TABLE bus_dead_letters (
  id            uuid        NOT NULL,
  handler       text        NOT NULL,
  durable       text        NOT NULL,
  event_id      uuid        NOT NULL,
  event_seq     bigint      NOT NULL,
  event_type    text        NOT NULL,
  error_kind    text        NOT NULL,
  error_class   text        NOT NULL,
  error_message text        NOT NULL,
  deliveries    integer     NOT NULL,
  dead_at       timestamptz NOT NULL,
  replayed_at   timestamptz,
  replays       integer     NOT NULL DEFAULT 0,
  CONSTRAINT bus_dead_letters_pkey PRIMARY KEY (id),
  CONSTRAINT bus_dead_letters_handler_event UNIQUE (handler, event_id),
  CONSTRAINT bus_dead_letters_deliveries_positive CHECK (deliveries >= 1),
  CONSTRAINT bus_dead_letters_replays_not_negative CHECK (replays >= 0)
);
CREATE INDEX bus_dead_letters_dead_at ON bus_dead_letters (dead_at);
COMMENT ON TABLE bus_dead_letters IS 'One row per bus handler and event whose dispatch ended in a term or in the last retryable failure: what an operator lists, shows and replays.';

ALTER TABLE bus_dead_letters OWNER TO bothy_owner;
REVOKE ALL ON bus_dead_letters FROM PUBLIC;
-- UPDATE marks a replay and records a later death of the same pair; DELETE only for the
-- retention job bus.delivery_retention.
GRANT SELECT, INSERT, UPDATE, DELETE ON bus_dead_letters TO bothy_app;

ALTER TABLE event_consumer_cursors DROP CONSTRAINT event_consumer_cursors_name_known;
ALTER TABLE event_consumer_cursors ADD CONSTRAINT event_consumer_cursors_name_known CHECK (name IN ('push', 'webhooks', 'bus'));
