--liquibase formatted sql

--changeset bothy:0006-event-consumer-cursors splitStatements:false
--comment: the cursors of the worker consumers of the event log (push, webhooks); no rows: a consumer gets its row at the head when it is first registered
CREATE TABLE event_consumer_cursors (
  name       text        NOT NULL,
  last_seq   bigint      NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT event_consumer_cursors_pkey PRIMARY KEY (name),
  CONSTRAINT event_consumer_cursors_name_known CHECK (name IN ('push', 'webhooks'))
);
COMMENT ON TABLE event_consumer_cursors IS 'One row per registered worker consumer: the last event number its rounds processed.';

ALTER TABLE event_consumer_cursors OWNER TO bothy_owner;
REVOKE ALL ON event_consumer_cursors FROM PUBLIC;
-- No DELETE: a cursor is never removed by the runtime; moving it by hand loses events.
GRANT SELECT, INSERT, UPDATE ON event_consumer_cursors TO bothy_app;
