package dev.bothy.console.domain;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
   * One sample.
   *
   * @param at when it was read
   * @param headSeq the log's head
   * @param consumers every worker consumer with a cursor row
   * @param relayLag the relay's lag, empty without a bus
   */
  public record Sample(
      Instant at, long headSeq, List<ConsumerPoint> consumers, OptionalLong relayLag) {
    /** Checks the fields and copies the list. */
    public Sample {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(relayLag, "relayLag");
      consumers = List.copyOf(consumers);
    }
  }

  /**
   * A sample with the append rate since the one before it.
   *
   * @param sample the sample
   * @param appendRate events per second since the previous sample; empty for the first sample or
   *     when the head went backwards (a restored database)
   */
  public record Point(Sample sample, OptionalDouble appendRate) {}

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
      points.add(new Point(s, rate(previous, s)));
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
