package dev.bothy.wire.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The rules that span configuration keys, in one place: later sections add theirs here.
 *
 * <p>Each message names the keys involved and never a value, so a password cannot leak into a start
 * failure.
 */
public final class CrossKeyChecks {
  private static final Set<String> LOOPBACK_HOSTS =
      Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  private CrossKeyChecks() {}

  /**
   * Checks a configuration.
   *
   * @param configuration the configuration whose single keys are already valid
   * @return one message per broken rule; empty when all hold
   */
  public static List<String> check(BothyConfiguration configuration) {
    List<String> problems = new ArrayList<>();
    DatabaseConfig db = configuration.database();
    if (db == null) {
      return problems;
    }
    db.url()
        .filter(url -> db.password().isEmpty())
        .flatMap(CrossKeyChecks::remoteHost)
        .ifPresent(
            host ->
                problems.add(
                    "database.password is required when database.url names a remote host"));
    if (db.lockTimeout() != null
        && db.statementTimeout() != null
        && db.lockTimeout().toNanoseconds() >= db.statementTimeout().toNanoseconds()) {
      problems.add(
          "database.lockTimeout must be shorter than database.statementTimeout, or lock waits"
              + " end as statement timeouts that are not retried");
    }
    if (db.txRetryBaseDelay() != null
        && db.txRetryMaxDelay() != null
        && db.txRetryBaseDelay().toNanoseconds() > db.txRetryMaxDelay().toNanoseconds()) {
      problems.add("database.txRetryBaseDelay must not exceed database.txRetryMaxDelay");
    }
    return problems;
  }

  /** Returns the host of a JDBC URL when it is not the loopback (nor a Unix socket). */
  static Optional<String> remoteHost(String jdbcUrl) {
    String rest = jdbcUrl.substring("jdbc:".length());
    URI uri;
    try {
      uri = URI.create(rest);
    } catch (IllegalArgumentException e) {
      return Optional.of("unparsable");
    }
    String host = uri.getHost();
    if (host == null) {
      // jdbc:postgresql:name or a socket factory URL: the driver connects to localhost.
      return Optional.empty();
    }
    return LOOPBACK_HOSTS.contains(host.toLowerCase(Locale.ROOT))
        ? Optional.empty()
        : Optional.of(host);
  }
}
