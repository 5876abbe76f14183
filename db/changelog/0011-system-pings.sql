--liquibase formatted sql

--changeset bothy:0011-system-pings
--comment: the table system_pings of the system module, flow 00: a ping recorded by POST /v1/system/pings and echoed by the bus handler system.echo
CREATE TABLE system_pings (
  id        uuid        NOT NULL,
  status    text        NOT NULL,
  pinged_at timestamptz NOT NULL,
  echoed_at timestamptz,
  CONSTRAINT system_pings_pkey PRIMARY KEY (id),
  CONSTRAINT system_pings_status_known CHECK (status IN ('pinged', 'echoed')),
  CONSTRAINT system_pings_echoed_at_with_status CHECK ((status = 'echoed') = (echoed_at IS NOT NULL))
);
COMMENT ON TABLE system_pings IS 'One row per ping of flow 00: pinged when recorded, echoed once the bus handler system.echo ran.';

ALTER TABLE system_pings OWNER TO bothy_owner;
REVOKE ALL ON system_pings FROM PUBLIC;
-- The handler's guarded update touches status and echoed_at only; no DELETE: a ping is a
-- record of a check an operator ran.
GRANT SELECT, INSERT ON system_pings TO bothy_app;
GRANT UPDATE (status, echoed_at) ON system_pings TO bothy_app;
