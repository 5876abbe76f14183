package dev.bothy.platform.jobs;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A job row as operators see it.
 *
 * @param id the id
 * @param kind the kind's name
 * @param queue the queue
 * @param state the state
 * @param attempt attempts so far
 * @param maxAttempts attempts after which a failure discards it
 * @param priority 1 (first) to 4 (last)
 * @param args the args as JSON
 * @param createdAt when it was inserted
 * @param scheduledAt when it is or was due
 * @param attemptedAt when the last attempt started
 * @param attemptedBy the runtime of the last attempt
 * @param finalizedAt when it reached a final state
 * @param uniqueKey its unique key
 * @param errors the error history, oldest first
 */
public record JobView(
    UUID id,
    String kind,
    String queue,
    JobState state,
    int attempt,
    int maxAttempts,
    int priority,
    String args,
    Instant createdAt,
    Instant scheduledAt,
    Optional<Instant> attemptedAt,
    Optional<String> attemptedBy,
    Optional<Instant> finalizedAt,
    Optional<String> uniqueKey,
    List<JobError> errors) {
  /** Checks the fields and copies the history. */
  public JobView {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(state, "state");
    errors = List.copyOf(errors);
  }
}
