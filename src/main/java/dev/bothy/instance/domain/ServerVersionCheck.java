package dev.bothy.instance.domain;

import java.util.Optional;

/**
 * Decides whether this server may run against the schema: its own version must not be below the
 * schema's minimum server version ({@code instance.min_server_version}).
 */
public final class ServerVersionCheck {
  private ServerVersionCheck() {}

  /**
   * Checks the own version against the minimum.
   *
   * @param own this server's version
   * @param min the minimum server version the schema allows
   * @return empty when the server may run; else a sentence that names both versions, for the start
   *     log
   * @throws dev.bothy.kernel.BothyException {@code invalid} when either is not SemVer
   */
  public static Optional<String> check(String own, String min) {
    if (SemVer.compare(own, min) >= 0) {
      return Optional.empty();
    }
    return Optional.of(
        "the schema requires server version "
            + min
            + " or newer, this server is "
            + own
            + ": upgrade the server");
  }
}
