--liquibase formatted sql

--changeset bothy:0001-roles splitStatements:false
--comment: the owner and runtime roles, created only when missing, and the schema grants every later table builds on
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'bothy_owner') THEN
    CREATE ROLE bothy_owner LOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'bothy_app') THEN
    CREATE ROLE bothy_app LOGIN;
  END IF;
  -- A superuser running the first migration hands the schema and Liquibase's own tables to
  -- the owner role, so every later db migrate can run as bothy_owner. A DBA who prepared the
  -- roles, created the database with OWNER bothy_owner and migrates as bothy_owner needs none
  -- of this.
  IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
    ALTER SCHEMA public OWNER TO bothy_owner;
    ALTER TABLE databasechangelog OWNER TO bothy_owner;
    ALTER TABLE databasechangeloglock OWNER TO bothy_owner;
  END IF;
END
$$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO bothy_app;
