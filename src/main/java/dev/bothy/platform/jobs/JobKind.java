package dev.bothy.platform.jobs;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A kind of job: its name, the record type of its arguments, its queue, attempts, priority, timeout
 * and work function. Registered once in a {@link JobRegistry} before the runtime starts.
 *
 * <p>Example:
 *
 * <pre>{@code
 * record DeliverArgs(UUID webhookId, long seq) {}
 * JobKind<DeliverArgs> deliver =
 *     JobKind.builder("webhooks.deliver", DeliverArgs.class, (ctx, args) -> send(args))
 *         .queue("webhooks")
 *         .maxAttempts(10)
 *         .build();
 * }</pre>
 *
 * <p>Unset attempts and timeout take {@code jobs.defaultMaxAttempts} and {@code
 * jobs.defaultTimeout} when the kind is registered; the queue defaults to {@code default} and the
 * priority to 1 (the first fetched; 4 is the last).
 *
 * @param <A> the args record type: IDs, numbers, enums and booleans only
 */
public final class JobKind<A extends Record> {
  /** The queue of a kind that names none. */
  public static final String DEFAULT_QUEUE = "default";

  /** The highest priority, fetched first; the default. */
  public static final int HIGHEST_PRIORITY = 1;

  /** The lowest priority, fetched last. */
  public static final int LOWEST_PRIORITY = 4;

  private final String name;
  private final Class<A> argsType;
  private final JobWork<A> work;
  private final Optional<AsyncJobWork<A>> asyncWork;
  private final String queue;
  private final OptionalInt maxAttempts;
  private final int priority;
  private final Optional<Duration> timeout;
  private final Optional<RetryDelays> retryDelays;

  private JobKind(Builder<A> b) {
    this.name = b.name;
    this.argsType = b.argsType;
    this.work = b.work;
    this.asyncWork = b.asyncWork;
    this.queue = b.queue;
    this.maxAttempts = b.maxAttempts;
    this.priority = b.priority;
    this.timeout = b.timeout;
    this.retryDelays = b.retryDelays;
  }

  /**
   * Starts a kind.
   *
   * @param name {@code module.name}, lower case with underscores, for example {@code
   *     sync.consumer_probe}
   * @param argsType the args record type
   * @param work the work function
   * @param <A> the args record type
   * @return a builder
   */
  public static <A extends Record> Builder<A> builder(
      String name, Class<A> argsType, JobWork<A> work) {
    return new Builder<>(name, argsType, work);
  }

  /**
   * Starts a kind whose work does not hold a thread while it waits ({@link AsyncJobWork}).
   *
   * @param name {@code module.name}, as for {@link #builder}
   * @param argsType the args record type
   * @param work the work function
   * @param <A> the args record type
   * @return a builder
   */
  public static <A extends Record> Builder<A> asyncBuilder(
      String name, Class<A> argsType, AsyncJobWork<A> work) {
    Objects.requireNonNull(work, "work");
    Builder<A> b = new Builder<>(name, argsType, (context, args) -> awaited(work, context, args));
    b.asyncWork = Optional.of(work);
    return b;
  }

  /**
   * An asynchronous work run to its end while the calling thread waits: the {@link #work()} of an
   * asynchronous kind, for callers outside the runtime such as tools and tests. What the work hands
   * to its blocking executor runs at once on the thread that hands it over (the calling thread, or
   * the one that completed what the work waited for).
   */
  private static <A extends Record> void awaited(AsyncJobWork<A> work, JobContext context, A args)
      throws Exception {
    try {
      work.start(context, args, Runnable::run).toCompletableFuture().get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CompletionException wrapped && wrapped.getCause() != null) {
        cause = wrapped.getCause();
      }
      if (cause instanceof Exception x) {
        throw x;
      }
      if (cause instanceof Error x) {
        throw x;
      }
      throw e;
    }
  }

  /**
   * The name.
   *
   * @return the kind's name, stored in {@code jobs.kind}
   */
  public String name() {
    return name;
  }

  /**
   * The args record type.
   *
   * @return the class
   */
  public Class<A> argsType() {
    return argsType;
  }

  /**
   * The work function; for an asynchronous kind, one that starts the work and waits for its end.
   *
   * @return the function
   */
  public JobWork<A> work() {
    return work;
  }

  /**
   * The asynchronous work function, when the kind was built with {@link #asyncBuilder}: the runtime
   * starts it on its fetch thread and holds the job's slot until it ends.
   *
   * @return the function, or empty for a kind whose work runs on a worker thread
   */
  public Optional<AsyncJobWork<A>> asyncWork() {
    return asyncWork;
  }

  /**
   * The queue.
   *
   * @return the queue's name
   */
  public String queue() {
    return queue;
  }

  /**
   * The attempts, when the kind sets them.
   *
   * @return the attempts, or empty for {@code jobs.defaultMaxAttempts}
   */
  public OptionalInt maxAttempts() {
    return maxAttempts;
  }

  /**
   * The priority of its jobs unless an insert overrides it.
   *
   * @return 1 (first) to 4 (last)
   */
  public int priority() {
    return priority;
  }

  /**
   * The timeout of one attempt, when the kind sets it.
   *
   * @return the timeout, or empty for {@code jobs.defaultTimeout}
   */
  public Optional<Duration> timeout() {
    return timeout;
  }

  /**
   * The kind's own retry delays, when it sets them.
   *
   * @return the delays, or empty for the runtime's backoff ({@code jobs.retryBaseDelay} to {@code
   *     jobs.retryMaxDelay})
   */
  public Optional<RetryDelays> retryDelays() {
    return retryDelays;
  }

  @Override
  public String toString() {
    return "JobKind[" + name + ", queue=" + queue + "]";
  }

  /**
   * Builds a {@link JobKind}.
   *
   * @param <A> the args record type
   */
  public static final class Builder<A extends Record> {
    private final String name;
    private final Class<A> argsType;
    private final JobWork<A> work;
    private Optional<AsyncJobWork<A>> asyncWork = Optional.empty();
    private String queue = DEFAULT_QUEUE;
    private OptionalInt maxAttempts = OptionalInt.empty();
    private int priority = HIGHEST_PRIORITY;
    private Optional<Duration> timeout = Optional.empty();
    private Optional<RetryDelays> retryDelays = Optional.empty();

    private Builder(String name, Class<A> argsType, JobWork<A> work) {
      this.name = Objects.requireNonNull(name, "name");
      this.argsType = Objects.requireNonNull(argsType, "argsType");
      this.work = Objects.requireNonNull(work, "work");
    }

    /**
     * Sets the queue; it must appear in {@code jobs.queues} of the processes that work it.
     *
     * @param queue lower case with underscores
     * @return this builder
     */
    public Builder<A> queue(String queue) {
      this.queue = Objects.requireNonNull(queue, "queue");
      return this;
    }

    /**
     * Sets the attempts after which a failure discards the job.
     *
     * @param maxAttempts 1 or more
     * @return this builder
     */
    public Builder<A> maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
      }
      this.maxAttempts = OptionalInt.of(maxAttempts);
      return this;
    }

    /**
     * Sets the default priority of the kind's jobs.
     *
     * @param priority 1 (first) to 4 (last)
     * @return this builder
     */
    public Builder<A> priority(int priority) {
      this.priority = checkPriority(priority);
      return this;
    }

    /**
     * Sets the timeout of one attempt; past it the work's thread is interrupted (an asynchronous
     * work's future cancelled) and the attempt fails.
     *
     * @param timeout more than zero, and less than {@code jobs.rescueAfter}
     * @return this builder
     */
    public Builder<A> timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("a job timeout must be positive: " + timeout);
      }
      this.timeout = Optional.of(timeout);
      return this;
    }

    /**
     * Sets the delays between attempts, instead of the runtime's exponential backoff; with {@link
     * #maxAttempts} they make a kind's whole retry schedule durable in the job's row.
     *
     * @param delays the delay after each failed attempt
     * @return this builder
     */
    public Builder<A> retryDelays(RetryDelays delays) {
      this.retryDelays = Optional.of(Objects.requireNonNull(delays, "delays"));
      return this;
    }

    /**
     * Builds the kind.
     *
     * @return the kind
     */
    public JobKind<A> build() {
      return new JobKind<>(this);
    }
  }

  /**
   * Checks a priority.
   *
   * @param priority the priority
   * @return the priority
   * @throws IllegalArgumentException outside 1 to 4
   */
  static int checkPriority(int priority) {
    if (priority < HIGHEST_PRIORITY || priority > LOWEST_PRIORITY) {
      throw new IllegalArgumentException("a job priority is 1 (first) to 4 (last): " + priority);
    }
    return priority;
  }
}
