package dev.bothy.platform.jobs.runtime;

import java.time.Instant;
import java.util.UUID;

/**
 * A job the fetch statement handed to this runtime.
 *
 * @param id the id
 * @param kind the kind's name
 * @param args the args JSON
 * @param attempt this attempt, already counted
 * @param maxAttempts the attempts after which a failure discards it
 * @param scheduledAt when it became due
 */
record FetchedJob(
    UUID id, String kind, String args, int attempt, int maxAttempts, Instant scheduledAt) {}
