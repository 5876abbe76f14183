--liquibase formatted sql

--changeset bothy:0003-event-log splitStatements:false
--comment: the global, gapless, commit-ordered event log, partitioned by range of seq
CREATE TABLE event_log (
  seq           bigint      NOT NULL,
  id            uuid        NOT NULL,
  type          text        NOT NULL,
  occurred_at   timestamptz NOT NULL,
  resource_type text        NOT NULL,
  resource_id   uuid        NOT NULL,
  actor_id      uuid        NULL,
  payload       jsonb       NOT NULL,
  traceparent   text        NULL,
  CONSTRAINT event_log_pkey PRIMARY KEY (seq),
  CONSTRAINT event_log_seq_positive CHECK (seq > 0),
  CONSTRAINT event_log_type_not_blank CHECK (type <> ''),
  CONSTRAINT event_log_resource_type_not_blank CHECK (resource_type <> '')
) PARTITION BY RANGE (seq);
COMMENT ON TABLE event_log IS 'The global event log: seq comes from the event_seq counter in the sync phase; gapless and commit-ordered.';

-- The first partition; the partition maintenance keeps sync.partitionsAhead more ahead of the
-- head, with sync.eventLogPartitionSize numbers each, and drops old ones whole.
CREATE TABLE event_log_p0000000000000000001 PARTITION OF event_log
  FOR VALUES FROM (1) TO (1000001);

ALTER TABLE event_log OWNER TO bothy_owner;
ALTER TABLE event_log_p0000000000000000001 OWNER TO bothy_owner;
REVOKE ALL ON event_log FROM PUBLIC;
GRANT SELECT, INSERT ON event_log TO bothy_app;
