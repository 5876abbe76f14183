--liquibase formatted sql

--changeset bothy:0007-api-idempotency-keys splitStatements:false
--comment: the first response to each Idempotency-Key of POST /v1/events, per token, kept for api.idempotencyRetention
CREATE TABLE api_idempotency_keys (
  token_name     text        NOT NULL,
  idem_key       text        NOT NULL,
  request_sha256 bytea       NOT NULL,
  status         integer     NOT NULL,
  response       text        NOT NULL,
  created_at     timestamptz NOT NULL,
  CONSTRAINT api_idempotency_keys_pkey PRIMARY KEY (token_name, idem_key),
  CONSTRAINT api_idempotency_keys_sha256_length CHECK (octet_length(request_sha256) = 32)
);
COMMENT ON TABLE api_idempotency_keys IS 'The first response to an Idempotency-Key of POST /v1/events, per token; a retry with the same body gets it again, another body is a conflict.';
CREATE INDEX api_idempotency_keys_created_at ON api_idempotency_keys (created_at);

ALTER TABLE api_idempotency_keys OWNER TO bothy_owner;
REVOKE ALL ON api_idempotency_keys FROM PUBLIC;
-- No UPDATE: a stored response never changes. DELETE is for the cleaner job and for a key
-- that expired and is used again.
GRANT SELECT, INSERT, DELETE ON api_idempotency_keys TO bothy_app;
