package dev.bothy.wire;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import io.dropwizard.db.ManagedDataSource;

/**
 * A HikariCP pool as Dropwizard's {@link ManagedDataSource}; in the embedded default it also owns
 * the embedded PostgreSQL, stopped right after the pool closes.
 */
final class ManagedHikariDataSource extends HikariDataSource implements ManagedDataSource {
  private final EmbeddedPostgresServer embedded;

  /**
   * Starts the pool.
   *
   * @param config the pool configuration
   * @param embedded the embedded server to stop with the pool, or null
   */
  ManagedHikariDataSource(HikariConfig config, EmbeddedPostgresServer embedded) {
    super(config);
    this.embedded = embedded;
  }

  @Override
  public void start() {
    // The pool started in the constructor.
  }

  @Override
  public void stop() {
    try {
      close();
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }
}
