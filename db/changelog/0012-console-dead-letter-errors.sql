--liquibase formatted sql

--changeset bothy:0012-console-dead-letter-errors
--comment: the error history of a bus dead letter, for the operator console: one entry per death of the handler and event pair, oldest first
ALTER TABLE bus_dead_letters ADD COLUMN errors jsonb NOT NULL DEFAULT '[]'::jsonb;
-- Rows written before this change hold their one failure in the error_* columns: it becomes
-- the first entry of their history.
UPDATE bus_dead_letters SET errors = jsonb_build_array(jsonb_build_object(
  'at', dead_at, 'deliveries', deliveries, 'kind', error_kind, 'error', error_class,
  'message', error_message));
ALTER TABLE bus_dead_letters ADD CONSTRAINT bus_dead_letters_errors_array CHECK (jsonb_typeof(errors) = 'array');
COMMENT ON COLUMN bus_dead_letters.errors IS 'Every death of this handler and event, oldest first: at, deliveries, kind, error (class), message; one entry is added each time the pair dies, the first time and after each replay.';
