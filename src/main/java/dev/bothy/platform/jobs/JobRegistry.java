package dev.bothy.platform.jobs;

import dev.bothy.platform.jobs.domain.ArgsRules;
import dev.bothy.platform.jobs.domain.JobNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The job kinds and periodic jobs of a process, registered while it assembles and frozen when it
 * starts. Every role holds the same registry: {@code api} needs it to insert, {@code worker} to
 * work.
 *
 * <p>Registration checks the kind (its name, its args type through {@link ArgsRules}, its timeout
 * against {@code jobs.rescueAfter}) and fails with {@link IllegalArgumentException} naming what is
 * wrong; a duplicate name or args type, or any registration after {@link #freeze()}, fails with
 * {@link IllegalStateException}.
 */
public final class JobRegistry {
  private final int defaultMaxAttempts;
  private final Duration defaultTimeout;
  private final Duration rescueAfter;
  private final Map<String, Registered<?>> byName = new LinkedHashMap<>();
  private final Map<Class<?>, Registered<?>> byArgs = new LinkedHashMap<>();
  private final List<PeriodicJob> periodic = new ArrayList<>();
  private volatile boolean frozen;

  /**
   * A kind with its defaults resolved.
   *
   * @param kind the kind
   * @param maxAttempts its attempts
   * @param timeout its timeout per attempt
   * @param <A> the args type
   */
  public record Registered<A extends Record>(JobKind<A> kind, int maxAttempts, Duration timeout) {}

  /**
   * Creates an empty registry.
   *
   * @param defaultMaxAttempts {@code jobs.defaultMaxAttempts}
   * @param defaultTimeout {@code jobs.defaultTimeout}
   * @param rescueAfter {@code jobs.rescueAfter}; every timeout must be shorter
   */
  public JobRegistry(int defaultMaxAttempts, Duration defaultTimeout, Duration rescueAfter) {
    if (defaultMaxAttempts < 1) {
      throw new IllegalArgumentException("defaultMaxAttempts must be at least 1");
    }
    this.defaultMaxAttempts = defaultMaxAttempts;
    this.defaultTimeout = Objects.requireNonNull(defaultTimeout, "defaultTimeout");
    this.rescueAfter = Objects.requireNonNull(rescueAfter, "rescueAfter");
  }

  /**
   * Registers a kind.
   *
   * @param kind the kind
   * @param <A> its args type
   * @throws IllegalArgumentException for a malformed name or queue, an args type with a field that
   *     is not an ID, number, enum or boolean, or a timeout not shorter than {@code
   *     jobs.rescueAfter}
   * @throws IllegalStateException for a duplicate name or args type, or after {@link #freeze()}
   */
  public synchronized <A extends Record> void register(JobKind<A> kind) {
    checkOpen("job kind " + kind.name());
    if (!JobNames.validKind(kind.name())) {
      throw new IllegalArgumentException(
          "job kind name '" + kind.name() + "' is not of the form module.name (lower case)");
    }
    if (!JobNames.validQueue(kind.queue())) {
      throw new IllegalArgumentException(
          "job kind " + kind.name() + ": queue '" + kind.queue() + "' is not a lower-case word");
    }
    List<String> problems = ArgsRules.problems(kind.argsType());
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "job kind " + kind.name() + " has unsafe args: " + String.join("; ", problems));
    }
    if (byName.containsKey(kind.name())) {
      throw new IllegalStateException("job kind " + kind.name() + " is registered twice");
    }
    if (byArgs.containsKey(kind.argsType())) {
      throw new IllegalStateException(
          "args type "
              + kind.argsType().getName()
              + " already belongs to job kind "
              + byArgs.get(kind.argsType()).kind().name());
    }
    Duration timeout = kind.timeout().orElse(defaultTimeout);
    if (timeout.compareTo(rescueAfter) >= 0) {
      throw new IllegalArgumentException(
          "job kind "
              + kind.name()
              + ": its timeout must be shorter than jobs.rescueAfter, or the rescuer would take"
              + " back jobs that still run");
    }
    Registered<A> r =
        new Registered<>(kind, kind.maxAttempts().orElse(defaultMaxAttempts), timeout);
    byName.put(kind.name(), r);
    byArgs.put(kind.argsType(), r);
  }

  /**
   * Registers a periodic job; its args type must belong to a registered kind.
   *
   * @param job the periodic job
   * @throws IllegalArgumentException when no kind takes its args
   * @throws IllegalStateException after {@link #freeze()}, or when its kind has a periodic job
   *     already
   */
  public synchronized void registerPeriodic(PeriodicJob job) {
    checkOpen("periodic job " + job.args().getClass().getSimpleName());
    if (!byArgs.containsKey(job.args().getClass())) {
      throw new IllegalArgumentException(
          "no job kind takes " + job.args().getClass().getName() + " for a periodic job");
    }
    for (PeriodicJob p : periodic) {
      if (p.args().getClass() == job.args().getClass()) {
        throw new IllegalStateException(
            "job kind "
                + byArgs.get(job.args().getClass()).kind().name()
                + " already has a periodic job; the unique key per period would fold two into"
                + " one");
      }
    }
    periodic.add(job);
  }

  /** Ends registration; the process calls it as it starts. */
  public void freeze() {
    frozen = true;
  }

  /**
   * The kind of a stored job.
   *
   * @param name the kind's name
   * @return the kind, or empty when this process does not know it
   */
  public Optional<Registered<?>> byName(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * The kind that takes these args.
   *
   * @param args an args record
   * @return the kind, or empty when none takes the type
   */
  public Optional<Registered<?>> byArgs(Record args) {
    return Optional.ofNullable(byArgs.get(args.getClass()));
  }

  /**
   * Every kind, in registration order.
   *
   * @return the kinds
   */
  public Collection<Registered<?>> kinds() {
    return List.copyOf(byName.values());
  }

  /**
   * The periodic jobs.
   *
   * @return the periodic jobs, in registration order
   */
  public List<PeriodicJob> periodic() {
    return List.copyOf(periodic);
  }

  private void checkOpen(String what) {
    if (frozen) {
      throw new IllegalStateException(
          "cannot register " + what + ": job registration is frozen once the process started");
    }
  }
}
