--liquibase formatted sql

--changeset bothy:0002-instance splitStatements:false
--comment: the instance record and the sequence counters (the serialization points of the event sequence, the audit chain and the permission version)
CREATE TABLE instance (
  id                 smallint    NOT NULL,
  instance_id        uuid        NOT NULL,
  sync_epoch         uuid        NOT NULL,
  setup_completed_at timestamptz NULL,
  schema_version     bigint      NOT NULL,
  min_server_version text        NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT instance_pkey PRIMARY KEY (id),
  CONSTRAINT instance_single_row CHECK (id = 1),
  CONSTRAINT instance_schema_version_positive CHECK (schema_version > 0),
  CONSTRAINT instance_min_server_version_not_blank CHECK (min_server_version <> '')
);
COMMENT ON TABLE instance IS 'The one row that identifies this Bothy installation; written by db migrate.';

CREATE TABLE sequence_counters (
  name  text   NOT NULL,
  value bigint NOT NULL DEFAULT 0,
  CONSTRAINT sequence_counters_pkey PRIMARY KEY (name),
  CONSTRAINT sequence_counters_name_known
    CHECK (name IN ('event_seq', 'audit_seq', 'permission_version')),
  CONSTRAINT sequence_counters_value_not_negative CHECK (value >= 0)
);
COMMENT ON TABLE sequence_counters IS 'Gapless, commit-ordered counters; advanced only by the phase hooks that own them.';

INSERT INTO sequence_counters (name, value)
VALUES ('event_seq', 0), ('audit_seq', 0), ('permission_version', 0);

CREATE FUNCTION instance_counter_monotonic() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.name <> OLD.name THEN
    RAISE EXCEPTION 'sequence counter % cannot be renamed', OLD.name
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.value < OLD.value THEN
    RAISE EXCEPTION 'sequence counter % cannot decrease (from % to %)', OLD.name, OLD.value, NEW.value
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER sequence_counters_monotonic
  BEFORE UPDATE ON sequence_counters
  FOR EACH ROW EXECUTE FUNCTION instance_counter_monotonic();

ALTER TABLE instance OWNER TO bothy_owner;
ALTER TABLE sequence_counters OWNER TO bothy_owner;
ALTER FUNCTION instance_counter_monotonic() OWNER TO bothy_owner;
REVOKE ALL ON instance, sequence_counters FROM PUBLIC;
GRANT SELECT ON instance TO bothy_app;
GRANT SELECT, UPDATE (value) ON sequence_counters TO bothy_app;
