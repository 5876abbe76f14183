--liquibase formatted sql

--changeset bothy:0013-system-echoes
--comment: the table system_echoes of the system module, flow 00: the projection of the bus consumer system_echoes, one row per system.echoed event, rebuilt by bus replay system_echoes
CREATE TABLE system_echoes (
  ping_id         uuid        NOT NULL,
  pinged_event_id uuid        NOT NULL,
  echo_event_id   uuid        NOT NULL,
  echo_seq        bigint      NOT NULL,
  echoed_at       timestamptz NOT NULL,
  CONSTRAINT system_echoes_pkey PRIMARY KEY (ping_id),
  CONSTRAINT system_echoes_echo_seq_positive CHECK (echo_seq > 0)
);
COMMENT ON TABLE system_echoes IS 'The projection of the bus consumer system_echoes (flow 00): one row per echoed ping, from its system.echoed event alone (the event id and number, its time as echoed_at); bus replay system_echoes deletes every row and builds them again from the events.';

ALTER TABLE system_echoes OWNER TO bothy_owner;
REVOKE ALL ON system_echoes FROM PUBLIC;
-- The handler inserts with ON CONFLICT DO NOTHING; no UPDATE: a row is what one event says.
-- DELETE only for the replay's reset, which empties the table in one transaction.
GRANT SELECT, INSERT, DELETE ON system_echoes TO bothy_app;
