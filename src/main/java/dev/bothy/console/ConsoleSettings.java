package dev.bothy.console;

import dev.bothy.api.ApiToken;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The console's limits and tokens, from the {@code console} configuration section.
 *
 * @param readOnly {@code console.readOnly}: refuse every action (job retry and cancel, dead letter
 *     replay), whatever the token's scopes
 * @param defaultPageSize {@code console.defaultPageSize}: rows per page of every list without
 *     {@code limit}
 * @param maxPageSize {@code console.maxPageSize}: the largest {@code limit} a page takes
 * @param countCap {@code console.countCap}: counts of jobs, dead letters and attempts stop here and
 *     say {@code capped}
 * @param maxBulkJobs {@code console.maxBulkJobs}: the most job ids one bulk action takes
 * @param sampleInterval {@code console.sampleInterval}: the time between two history samples
 * @param historyWindow {@code console.historyWindow}: how far back the history reaches
 * @param tokens {@code api.tokens}: the console needs {@code admin:read} to look and {@code
 *     admin:write} to act
 */
public record ConsoleSettings(
    boolean readOnly,
    int defaultPageSize,
    int maxPageSize,
    int countCap,
    int maxBulkJobs,
    Duration sampleInterval,
    Duration historyWindow,
    List<ApiToken> tokens) {
  /** Checks the limits and copies the tokens. */
  public ConsoleSettings {
    tokens = List.copyOf(tokens);
    Objects.requireNonNull(sampleInterval, "sampleInterval");
    Objects.requireNonNull(historyWindow, "historyWindow");
    if (sampleInterval.isNegative()
        || sampleInterval.isZero()
        || historyWindow.compareTo(sampleInterval) <= 0) {
      throw new IllegalArgumentException(
          "console.sampleInterval is positive and shorter than console.historyWindow");
    }
    if (maxPageSize < 1 || countCap < 1 || maxBulkJobs < 1) {
      throw new IllegalArgumentException("the console limits are at least 1");
    }
    if (defaultPageSize < 1 || defaultPageSize > maxPageSize) {
      throw new IllegalArgumentException("console.defaultPageSize lies in 1..console.maxPageSize");
    }
  }
}
