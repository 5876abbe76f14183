--liquibase formatted sql

--changeset bothy:0009-bus-relay-cursors splitStatements:false
--comment: the cursor of the bus relay from the event log to a JetStream stream; no rows: the relay writes its row at its first start
CREATE TABLE bus_relay_cursors (
  stream     text        NOT NULL,
  last_seq   bigint      NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT bus_relay_cursors_pkey PRIMARY KEY (stream),
  CONSTRAINT bus_relay_cursors_stream_known CHECK (stream IN ('EVENTS')),
  CONSTRAINT bus_relay_cursors_last_seq_not_negative CHECK (last_seq >= 0)
);
COMMENT ON TABLE bus_relay_cursors IS 'One row per JetStream stream the relay feeds: the last event number every message up to which the stream has acknowledged.';

ALTER TABLE bus_relay_cursors OWNER TO bothy_owner;
REVOKE ALL ON bus_relay_cursors FROM PUBLIC;
-- No DELETE: a removed row would restart the relay at the oldest retained event. UPDATE moves
-- the cursor forward after acks and, through the operator command bus republish, backwards.
GRANT SELECT, INSERT, UPDATE ON bus_relay_cursors TO bothy_app;
