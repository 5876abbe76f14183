package dev.bothy.webhooks.domain;

import java.util.Map;
import java.util.Optional;

/**
 * What one HTTP attempt came back with, as far as the verdict needs it. The transport's {@code
 * SendResult} implements it, so the domain judges a result without depending on the {@code app}
 * package (the domain is the innermost ring: ArchitectureTest).
 */
public interface AttemptOutcome {
  /**
   * Returns the response status.
   *
   * @return the HTTP status, 0 when no response arrived
   */
  int status();

  /**
   * Returns the response headers the verdict may read.
   *
   * @return headers with lower-case names, at least {@code retry-after} when the receiver sent it
   */
  Map<String, String> responseHeaders();

  /**
   * Returns why no response arrived.
   *
   * @return a kind such as {@code timeout}, empty when a response arrived
   */
  Optional<String> errorKind();
}
