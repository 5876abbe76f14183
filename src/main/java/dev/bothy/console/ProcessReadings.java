package dev.bothy.console;

import dev.bothy.bus.BusConsumerState;
import java.util.List;
import java.util.Optional;

/**
 * What the console reads from the process it runs in rather than from the database: the counts of
 * the NATS durables this process consumes, as last sampled from their consumer info, and how long
 * this process's appending units held the {@code event_seq} lock. The assembly supplies both; each
 * read is cheap and never calls NATS or the database.
 */
public interface ProcessReadings {
  /** No durable and no appending unit: a process without either. */
  ProcessReadings NONE =
      new ProcessReadings() {
        @Override
        public List<BusConsumerState> busConsumers() {
          return List.of();
        }

        @Override
        public Optional<SeqLockHeld> seqLockHeld() {
          return Optional.empty();
        }
      };

  /**
   * How long appending units held the {@code event_seq} row lock, the serialization window of the
   * whole system, over the recent window of this process's timer.
   *
   * @param units appending units the timer counted since the process started
   * @param p50Millis the median hold, in milliseconds
   * @param p99Millis the 99th percentile, in milliseconds
   * @param maxMillis the longest hold the timer still keeps, in milliseconds
   */
  record SeqLockHeld(long units, double p50Millis, double p99Millis, double maxMillis) {}

  /**
   * Returns the NATS durables of this process's bus consumers.
   *
   * @return one per durable this process consumes; empty on the log transport and in the {@code
   *     api} role
   */
  List<BusConsumerState> busConsumers();

  /**
   * Returns the {@code event_seq} lock hold times of this process.
   *
   * @return the reading, or empty when this process has not appended yet
   */
  Optional<SeqLockHeld> seqLockHeld();
}
