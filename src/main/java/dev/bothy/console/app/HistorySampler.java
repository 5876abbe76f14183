package dev.bothy.console.app;

import dev.bothy.bus.RelayView;
import dev.bothy.console.ProcessReadings;
import dev.bothy.console.domain.History;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobActivity;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.EventLog;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads one sample for the console's history: the log's head, every worker consumer's lag and
 * pending age, the counts of this process's NATS durables, the relay's lag when a bus is
 * configured, and the jobs created, completed and discarded since the previous sample. Four short
 * reads, each its own unit of work; the loop that calls it runs every {@code
 * console.sampleInterval}. One thread calls it at a time.
 */
public final class HistorySampler {
  private final EventLog eventLog;
  private final Consumers consumers;
  private final Optional<RelayView> relay;
  private final JobAdmin jobs;
  private final ProcessReadings readings;
  private final Clock clock;
  private final History history;
  private Instant previousAt;

  /**
   * Creates the sampler.
   *
   * @param eventLog the event log
   * @param consumers the worker consumers
   * @param relay the relay, empty without a bus
   * @param jobs counts the jobs between two samples
   * @param readings the NATS durables' counts of this process
   * @param clock stamps the samples
   * @param history where the samples go
   */
  public HistorySampler(
      EventLog eventLog,
      Consumers consumers,
      Optional<RelayView> relay,
      JobAdmin jobs,
      ProcessReadings readings,
      Clock clock,
      History history) {
    this.eventLog = eventLog;
    this.consumers = consumers;
    this.relay = relay;
    this.jobs = jobs;
    this.readings = readings;
    this.clock = clock;
    this.history = history;
  }

  /**
   * Reads one sample and adds it to the history. The job counts cover the time since the previous
   * sample that succeeded, so a failed sample leaves no gap in them.
   */
  public void sample() {
    long head = eventLog.head();
    List<ConsumerState> states = consumers.states();
    OptionalLong relayLag = relay.map(r -> OptionalLong.of(r.lag())).orElseGet(OptionalLong::empty);
    Instant now = clock.now();
    Optional<History.JobCounts> counts = Optional.empty();
    if (previousAt != null && !now.isBefore(previousAt)) {
      JobActivity a = jobs.activity(previousAt, now);
      counts = Optional.of(new History.JobCounts(a.created(), a.completed(), a.discarded()));
    }
    history.add(
        new History.Sample(
            now,
            head,
            states.stream()
                .map(
                    s ->
                        new History.ConsumerPoint(
                            s.name().value(), s.lag(), pendingAgeSeconds(s, now)))
                .toList(),
            relayLag,
            counts,
            readings.busConsumers().stream()
                .map(
                    d ->
                        new History.DurablePoint(
                            d.durable(), d.pending(), d.ackPending(), d.redelivered()))
                .toList()));
    previousAt = now;
  }

  /**
   * How old a consumer's oldest unprocessed event is.
   *
   * @param state the consumer's state
   * @param now the time of the read
   * @return seconds, 0 at the head or for an event stamped after {@code now}
   */
  public static double pendingAgeSeconds(ConsumerState state, Instant now) {
    return state
        .oldestPendingAt()
        .map(at -> Math.max(0, Duration.between(at, now).toMillis()) / 1000.0)
        .orElse(0.0);
  }
}
