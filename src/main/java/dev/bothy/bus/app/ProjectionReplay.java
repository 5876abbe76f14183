package dev.bothy.bus.app;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.Projection;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.UnitOfWork;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replay of a projection consumer (ADR 0027): {@code bus replay <durable>}.
 *
 * <ol>
 *   <li>Refuses an unknown durable (naming the projections there are) and a consumer that is not a
 *       projection (saying why), before anything is written.
 *   <li>One unit of work pauses the consumer in every process ({@link ProjectionLock#exclusive},
 *       which waits for the handlers' units already running and keeps new ones from running),
 *       empties its projection's tables ({@link Projection.Reset}) and deletes its handlers'
 *       delivery rows. All of it commits together, or nothing does; the commit ends the pause.
 *   <li>Restarts the consumer from the start ({@link Restart}): on NATS its durable is deleted and
 *       created again, delivering from the stream's first message; on the log one {@code
 *       bus.dispatch} job per retained event and handler up to where the worker consumer {@code
 *       bus} stands, after which it queues the rest as always.
 * </ol>
 *
 * <p>Between the reset's commit and the restart, running workers go on handling the consumer's new
 * events: each writes its row and its delivery row together, so the restart finds it handled. A
 * failed or killed replay leaves either nothing reset, or a reset whose restart did not run:
 * running the command again completes it.
 */
public final class ProjectionReplay {
  private static final Logger LOG = LoggerFactory.getLogger(ProjectionReplay.class);

  /** How a transport restarts a consumer from the start, after its reset committed. */
  @FunctionalInterface
  public interface Restart {
    /**
     * Restarts the consumer from the start of what the transport retains.
     *
     * @param consumer the projection consumer, reset
     * @param progress where progress lines go, for the operator
     * @return where it restarts, in one line for the operator
     * @throws Exception any failure; the reset stays committed and a new replay completes it
     */
    String restart(BusConsumer consumer, Consumer<String> progress) throws Exception;
  }

  /**
   * What a replay did.
   *
   * @param durable the consumer's durable
   * @param tables the projection's tables
   * @param projectionRows the rows the reset deleted from them
   * @param deliveryRows the delivery rows of its handlers it deleted
   * @param restart where the consumer restarts
   */
  public record Report(
      String durable, List<String> tables, long projectionRows, int deliveryRows, String restart) {
    /** Copies the list. */
    public Report {
      tables = List.copyOf(tables);
    }
  }

  private final List<BusConsumer> consumers;
  private final UnitOfWork unitOfWork;
  private final ProjectionLock lock;
  private final DeliveryRepository deliveries;
  private final Restart restart;

  /**
   * Creates the replay.
   *
   * @param consumers every bus consumer the modules declare
   * @param unitOfWork the unit of work of the reset
   * @param lock the pause of projection consumers
   * @param deliveries the dedupe table
   * @param restart the transport's restart
   */
  public ProjectionReplay(
      List<BusConsumer> consumers,
      UnitOfWork unitOfWork,
      ProjectionLock lock,
      DeliveryRepository deliveries,
      Restart restart) {
    this.consumers = List.copyOf(consumers);
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.lock = Objects.requireNonNull(lock, "lock");
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    this.restart = Objects.requireNonNull(restart, "restart");
  }

  /**
   * Finds a projection consumer by its durable, or says why it cannot be replayed.
   *
   * @param durable the durable the operator named
   * @return the consumer, a projection
   * @throws BothyException {@code not_found} for an unknown durable, naming the projections; {@code
   *     invalid} for a consumer that is not a projection, saying why
   */
  public BusConsumer projection(String durable) {
    return projection(consumers, durable);
  }

  /**
   * Finds a projection consumer among the declared ones, without touching a database: the command
   * refuses bad input before it opens a connection.
   *
   * @param consumers every bus consumer the modules declare
   * @param durable the durable the operator named
   * @return the consumer, a projection
   * @throws BothyException {@code not_found} for an unknown durable, naming the projections; {@code
   *     invalid} for a consumer that is not a projection, saying why
   */
  public static BusConsumer projection(List<BusConsumer> consumers, String durable) {
    BusConsumer consumer =
        consumers.stream()
            .filter(c -> c.durable().equals(durable))
            .findFirst()
            .orElseThrow(
                () ->
                    BothyException.notFound(
                        "no bus consumer "
                            + durable
                            + "; the projections are "
                            + projections(consumers)
                            + " and the other consumers "
                            + others(consumers)));
    if (!consumer.isProjection()) {
      throw BothyException.invalid(
          "the bus consumer "
              + durable
              + " is not a projection: it declares no Projection, so what its handlers "
              + consumer.handlerNames()
              + " do (records they change, events they append, calls outside) is not rebuilt from"
              + " the events, and a replay would do it again; the projections are "
              + projections(consumers));
    }
    return consumer;
  }

  /**
   * Returns the durables of the projection consumers.
   *
   * @return the durables, in registration order
   */
  public List<String> projections() {
    return projections(consumers);
  }

  private static List<String> projections(List<BusConsumer> consumers) {
    return consumers.stream().filter(BusConsumer::isProjection).map(BusConsumer::durable).toList();
  }

  private static List<String> others(List<BusConsumer> consumers) {
    return consumers.stream().filter(c -> !c.isProjection()).map(BusConsumer::durable).toList();
  }

  /**
   * Replays a projection consumer: pause, reset and delivery rows in one unit, then the restart.
   *
   * @param durable the consumer's durable
   * @param progress where progress lines go, for the operator
   * @return what the replay did
   * @throws BothyException as {@link #projection}, before anything is written
   * @throws Exception a failure of the reset (nothing is reset) or of the restart (the reset stays;
   *     run the replay again)
   */
  public Report replay(String durable, Consumer<String> progress) throws Exception {
    BusConsumer consumer = projection(durable);
    Projection projection = consumer.projection().orElseThrow();
    List<String> handlers = consumer.handlerNames();
    progress.accept(
        "pausing "
            + durable
            + " in every process (waiting for its running handlers) and resetting "
            + projection.tables()
            + " and the delivery rows of "
            + handlers);
    long[] counts =
        unitOfWork.run(
            () -> {
              lock.exclusive(durable);
              long rows = projection.reset().reset();
              int delivered = deliveries.deleteAllOf(handlers);
              return new long[] {rows, delivered};
            });
    LOG.info(
        "bus projection reset: bothy.bus.durable={} tables={} rows={} delivery_rows={}",
        durable,
        projection.tables(),
        counts[0],
        counts[1]);
    progress.accept(
        "reset "
            + durable
            + ": "
            + counts[0]
            + " rows of "
            + projection.tables()
            + " and "
            + counts[1]
            + " delivery rows deleted in one transaction; the pause ended with its commit");
    String where = restart.restart(consumer, progress);
    LOG.info("bus projection restarted: bothy.bus.durable={} restart={}", durable, where);
    progress.accept("restarted " + durable + ": " + where);
    return new Report(durable, projection.tables(), counts[0], (int) counts[1], where);
  }
}
