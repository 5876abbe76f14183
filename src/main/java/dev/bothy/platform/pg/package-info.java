/**
 * PostgreSQL plumbing: the HikariCP pool, the embedded server of the development default, the
 * Liquibase migrator and the unit of work with phases and retries.
 *
 * <p>Only this package opens connections or transactions (an ArchUnit rule); stores in {@code
 * adapters.postgres} packages reach the current transaction through {@link
 * dev.bothy.platform.pg.PgTx#dsl()}.
 */
package dev.bothy.platform.pg;
