package dev.bothy.console.domain;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The ring buffer of samples the console draws its charts from: at most {@code capacity} samples,
 * the oldest dropped first, so memory stays fixed however long the process runs. Safe for one
 * writer and many readers.
 */
public final class History {
  /**
   * Where one worker consumer stood.
   *
   * @param name the consumer
   * @param lag events it had not processed
   * @param pendingAgeSeconds how old its oldest unprocessed event was, 0 at the head
   */
  public record ConsumerPoint(String name, long lag, double pendingAgeSeconds) {
    /** Checks the name. */
    public ConsumerPoint {
      Objects.requireNonNull(name, "name");
    }
  }

  /**
   * Where one NATS durable stood, as the process last sampled its consumer info.
   *
   * @param durable the durable
   * @param pending matching messages not yet delivered
   * @param ackPending delivered and not answered
   * @param redelivered delivered more than once and not yet answered
   */
  public record DurablePoint(String durable, long pending, long ackPending, long redelivered) {
    /** Checks the name. */
    public DurablePoint {
      Objects.requireNonNull(durable, "durable");
    }
  }

  /**
   * The jobs created, completed and discarded between the previous sample and this one.
   *
   * @param created jobs inserted
   * @param completed jobs completed
   * @param discarded jobs discarded
   */
  public record JobCounts(long created, long completed, long discarded) {
    /** Checks that no count is negative. */
    public JobCounts {
      if (created < 0 || completed < 0 || discarded < 0) {
        throw new IllegalArgumentException("job counts are not negative");
      }
    }
  }

  /**
   * Job rates between two samples.
   *
   * @param created jobs inserted per second
   * @param completed jobs completed per second
   * @param discarded jobs discarded per second
   */
  public record JobRates(double created, double completed, double discarded) {}

  /**
   * One sample.
   *
   * @param at when it was read
   * @param headSeq the log's head
   * @param consumers every worker consumer with a cursor row
   * @param relayLag the relay's lag, empty without a bus
   * @param jobs the jobs counted since the previous sample's {@code at}, empty for the first
   * @param busConsumers the NATS durables of the process, empty on the log transport
   */
  public record Sample(
      Instant at,
      long headSeq,
      List<ConsumerPoint> consumers,
      OptionalLong relayLag,
      Optional<JobCounts> jobs,
      List<DurablePoint> busConsumers) {
    /** Checks the fields and copies the lists. */
    public Sample {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(relayLag, "relayLag");
      Objects.requireNonNull(jobs, "jobs");
      consumers = List.copyOf(consumers);
      busConsumers = List.copyOf(busConsumers);
    }

    /**
     * A sample of a process without NATS durables.
     *
     * @param at when it was read
     * @param headSeq the log's head
     * @param consumers every worker consumer with a cursor row
     * @param relayLag the relay's lag, empty without a bus
     * @param jobs the jobs counted since the previous sample, empty for the first
     */
    public Sample(
        Instant at,
        long headSeq,
        List<ConsumerPoint> consumers,
        OptionalLong relayLag,
        Optional<JobCounts> jobs) {
      this(at, headSeq, consumers, relayLag, jobs, List.of());
    }
  }

  /**
   * A sample with the rates since the one before it.
   *
   * @param sample the sample
   * @param appendRate events per second since the previous sample; empty for the first sample or
   *     when the head went backwards (a restored database)
   * @param jobRates jobs per second since the previous sample; empty for the first sample or a
   *     sample without job counts
   */
  public record Point(Sample sample, OptionalDouble appendRate, Optional<JobRates> jobRates) {}

  private final int capacity;
  private final ArrayDeque<Sample> samples;

  /**
   * Creates an empty history.
   *
   * @param capacity the most samples it keeps, at least 2
   * @throws IllegalArgumentException for a capacity below 2
   */
  public History(int capacity) {
    if (capacity < 2) {
      throw new IllegalArgumentException("a history keeps at least 2 samples: " + capacity);
    }
    this.capacity = capacity;
    this.samples = new ArrayDeque<>(capacity);
  }

  /**
   * The capacity for a window and an interval: {@code window / interval}, at least 2.
   *
   * @param window how far back the charts reach
   * @param interval the time between samples
   * @return the capacity
   */
  public static int capacity(Duration window, Duration interval) {
    return (int) Math.max(2, Math.min(Integer.MAX_VALUE, window.toMillis() / interval.toMillis()));
  }

  /**
   * Adds a sample, dropping the oldest when full.
   *
   * @param sample the sample
   */
  public synchronized void add(Sample sample) {
    Objects.requireNonNull(sample, "sample");
    if (samples.size() == capacity) {
      samples.removeFirst();
    }
    samples.addLast(sample);
  }

  /**
   * Returns the samples, oldest first, each with the append rate since the one before.
   *
   * @return a copy
   */
  public synchronized List<Point> points() {
    List<Point> points = new ArrayList<>(samples.size());
    Sample previous = null;
    for (Sample s : samples) {
      points.add(new Point(s, rate(previous, s), jobRates(previous, s)));
      previous = s;
    }
    return points;
  }

  /**
   * Returns the append rate between the last two samples.
   *
   * @return events per second, or empty with fewer than two samples
   */
  public synchronized OptionalDouble lastAppendRate() {
    if (samples.size() < 2) {
      return OptionalDouble.empty();
    }
    Sample last = samples.removeLast();
    Sample before = samples.peekLast();
    samples.addLast(last);
    return rate(before, last);
  }

  private static Optional<JobRates> jobRates(Sample before, Sample after) {
    if (before == null || after.jobs().isEmpty()) {
      return Optional.empty();
    }
    long millis = Duration.between(before.at(), after.at()).toMillis();
    if (millis <= 0) {
      return Optional.empty();
    }
    JobCounts c = after.jobs().get();
    double seconds = millis / 1000.0;
    return Optional.of(
        new JobRates(c.created() / seconds, c.completed() / seconds, c.discarded() / seconds));
  }

  private static OptionalDouble rate(Sample before, Sample after) {
    if (before == null) {
      return OptionalDouble.empty();
    }
    long millis = Duration.between(before.at(), after.at()).toMillis();
    long events = after.headSeq() - before.headSeq();
    if (millis <= 0 || events < 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(events * 1000.0 / millis);
  }
}
