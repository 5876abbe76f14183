package dev.bothy.platform.jobs.runtime;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * A row about to be inserted.
 *
 * @param id its UUIDv7
 * @param kind the kind's name
 * @param queue the queue
 * @param args the args JSON
 * @param available true when due now (state {@code available}), false for {@code scheduled}
 * @param maxAttempts the attempts
 * @param priority 1 to 4
 * @param scheduledAt when it is due
 * @param uniqueKey its unique key
 */
record NewJob(
    UUID id,
    String kind,
    String queue,
    String args,
    boolean available,
    int maxAttempts,
    int priority,
    Instant scheduledAt,
    Optional<String> uniqueKey) {}
