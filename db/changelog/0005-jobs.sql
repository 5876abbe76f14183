--liquibase formatted sql

--changeset bothy:0005-jobs splitStatements:false
--comment: the background jobs of platform.jobs (our counterpart of River's river_job)
CREATE TABLE jobs (
  id            uuid        NOT NULL,
  kind          text        NOT NULL,
  queue         text        NOT NULL,
  args          jsonb       NOT NULL,
  state         text        NOT NULL,
  attempt       integer     NOT NULL DEFAULT 0,
  max_attempts  integer     NOT NULL,
  priority      smallint    NOT NULL,
  scheduled_at  timestamptz NOT NULL,
  created_at    timestamptz NOT NULL,
  attempted_at  timestamptz NULL,
  attempted_by  text        NULL,
  finalized_at  timestamptz NULL,
  errors        jsonb       NOT NULL DEFAULT '[]'::jsonb,
  unique_key    text        NULL,
  CONSTRAINT jobs_pkey PRIMARY KEY (id),
  CONSTRAINT jobs_kind_not_blank CHECK (kind <> ''),
  CONSTRAINT jobs_queue_not_blank CHECK (queue <> ''),
  CONSTRAINT jobs_state_known CHECK (state IN ('available', 'scheduled', 'running', 'retryable',
    'completed', 'discarded', 'cancelled')),
  CONSTRAINT jobs_attempt_not_negative CHECK (attempt >= 0),
  CONSTRAINT jobs_max_attempts_positive CHECK (max_attempts > 0),
  CONSTRAINT jobs_priority_range CHECK (priority BETWEEN 1 AND 4),
  CONSTRAINT jobs_args_object CHECK (jsonb_typeof(args) = 'object'),
  CONSTRAINT jobs_errors_array CHECK (jsonb_typeof(errors) = 'array'),
  CONSTRAINT jobs_finalized_when_final CHECK (
    (state IN ('completed', 'discarded', 'cancelled')) = (finalized_at IS NOT NULL)),
  CONSTRAINT jobs_running_attempted CHECK (
    state <> 'running' OR (attempted_at IS NOT NULL AND attempted_by IS NOT NULL))
);
COMMENT ON TABLE jobs IS 'Background jobs: inserted in the caller''s transaction, worked by platform.jobs workers.';

-- The fetch: the fetchable states of one queue in priority, due time and id order. A job
-- waiting for its run-at or its retry is fetchable once scheduled_at has passed, so no
-- scheduler has to promote it first.
CREATE INDEX jobs_fetch ON jobs (queue, priority, scheduled_at, id)
  WHERE state IN ('available', 'scheduled', 'retryable');
-- The rescuer: running jobs by the time their attempt started.
CREATE INDEX jobs_running ON jobs (attempted_at) WHERE state = 'running';
-- The cleaner: finished jobs by state and the time they finished.
CREATE INDEX jobs_finalized ON jobs (state, finalized_at)
  WHERE state IN ('completed', 'discarded', 'cancelled');
-- The operator listing by kind.
CREATE INDEX jobs_kind ON jobs (kind, id);
-- At most one job per kind and unique key while the row exists (inserts skip duplicates).
CREATE UNIQUE INDEX jobs_kind_unique_key ON jobs (kind, unique_key) WHERE unique_key IS NOT NULL;

ALTER TABLE jobs OWNER TO bothy_owner;
REVOKE ALL ON jobs FROM PUBLIC;
-- DELETE only for the cleaner, which removes finished jobs after their retention.
GRANT SELECT, INSERT, UPDATE, DELETE ON jobs TO bothy_app;
