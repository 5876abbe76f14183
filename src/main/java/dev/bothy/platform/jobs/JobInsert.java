package dev.bothy.platform.jobs;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One job to insert: its args (whose type names the kind) and the options of this insert.
 *
 * <p>Example: {@code JobInsert.of(new DeliverArgs(id, seq)).uniqueKey("deliver:" + id)}.
 *
 * @param args the args record of a registered kind
 * @param runAt when the job becomes due; empty for now
 * @param priority overrides the kind's priority; 1 (first) to 4 (last)
 * @param uniqueKey while a job of the same kind with this key exists, the insert is skipped
 */
public record JobInsert(
    Record args, Optional<Instant> runAt, OptionalInt priority, Optional<String> uniqueKey) {
  /** Checks the fields. */
  public JobInsert {
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(runAt, "runAt");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(uniqueKey, "uniqueKey");
    priority.ifPresent(JobKind::checkPriority);
    uniqueKey.ifPresent(
        k -> {
          if (k.isBlank()) {
            throw new IllegalArgumentException("a unique key must not be blank");
          }
        });
  }

  /**
   * An insert with no options.
   *
   * @param args the args record
   * @return the insert
   */
  public static JobInsert of(Record args) {
    return new JobInsert(args, Optional.empty(), OptionalInt.empty(), Optional.empty());
  }

  /**
   * The same insert, due at {@code at}.
   *
   * @param at when the job becomes due
   * @return a new insert
   */
  public JobInsert runAt(Instant at) {
    return new JobInsert(args, Optional.of(at), priority, uniqueKey);
  }

  /**
   * The same insert with another priority.
   *
   * @param p 1 (first) to 4 (last)
   * @return a new insert
   */
  public JobInsert priority(int p) {
    return new JobInsert(args, runAt, OptionalInt.of(p), uniqueKey);
  }

  /**
   * The same insert with a unique key.
   *
   * @param key the key, unique per kind while the job exists
   * @return a new insert
   */
  public JobInsert uniqueKey(String key) {
    return new JobInsert(args, runAt, priority, Optional.of(key));
  }
}
