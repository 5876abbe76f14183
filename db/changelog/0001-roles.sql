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
  -- A superuser running the first migration hands the schema to the owner role; a DBA who
  -- prepared the roles and migrates as bothy_owner has done that already.
  IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
    ALTER SCHEMA public OWNER TO bothy_owner;
  END IF;
END
$$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO bothy_app;
