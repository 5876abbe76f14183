--liquibase formatted sql

--changeset bothy:0004-event-log-partitions splitStatements:false
--comment: the two functions through which the runtime role maintains the partitions of event_log, and nothing more
CREATE FUNCTION bothy_event_log_create_partition(p_from bigint, p_to bigint) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_name text := 'event_log_p' || lpad(p_from::text, 19, '0');
BEGIN
  IF p_from < 1 OR p_to <= p_from THEN
    RAISE EXCEPTION 'invalid event_log partition range [%, %)', p_from, p_to
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF to_regclass('public.' || v_name) IS NULL THEN
    EXECUTE format('CREATE TABLE %I PARTITION OF event_log FOR VALUES FROM (%s) TO (%s)',
                   v_name, p_from, p_to);
  END IF;
  RETURN v_name;
END
$$;

CREATE FUNCTION bothy_event_log_drop_partition(p_name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF p_name !~ '^event_log_p[0-9]{19}$' THEN
    RAISE EXCEPTION 'not an event_log partition name: %', p_name
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT EXISTS (
      SELECT FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'public.event_log'::regclass AND c.relname = p_name) THEN
    RETURN;
  END IF;
  EXECUTE format('ALTER TABLE event_log DETACH PARTITION %I', p_name);
  EXECUTE format('DROP TABLE %I', p_name);
END
$$;

ALTER FUNCTION bothy_event_log_create_partition(bigint, bigint) OWNER TO bothy_owner;
ALTER FUNCTION bothy_event_log_drop_partition(text) OWNER TO bothy_owner;
REVOKE ALL ON FUNCTION bothy_event_log_create_partition(bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION bothy_event_log_drop_partition(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bothy_event_log_create_partition(bigint, bigint) TO bothy_app;
GRANT EXECUTE ON FUNCTION bothy_event_log_drop_partition(text) TO bothy_app;
