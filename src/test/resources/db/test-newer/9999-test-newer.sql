--liquibase formatted sql

--changeset bothy:9999-test-newer
CREATE TABLE test_newer_binary (id bigint PRIMARY KEY);
