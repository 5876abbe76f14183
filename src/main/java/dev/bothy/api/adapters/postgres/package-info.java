/** The PostgreSQL store of the HTTP API: {@code api_idempotency_keys}, written with jOOQ. */
package dev.bothy.api.adapters.postgres;
