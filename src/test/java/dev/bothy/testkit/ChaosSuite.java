package dev.bothy.testkit;

import dev.bothy.bus.app.DispatchFaults;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;

/**
 * The chaos suite of a bus consumer (issue 20): runs a {@link Script} through a {@link
 * ChaosConsumer} on one transport, once clean and once under each {@link Fault}, and compares each
 * end state with the clean one ({@link EndState#firstDifference}). A handler that converges under
 * redelivery, reordering and crashes passes; one that does not is named with the first line where
 * its state differs.
 *
 * <pre>{@code
 * @RegisterExtension static final PgExtension PG = new PgExtension();
 * @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();
 * static final ChaosSuite SUITE = ChaosSuite.of(consumer, script);
 *
 * @Test void converges_on_the_log() { SUITE.run(BusTransport.LOG, PG, NATS).assertConverged(); }
 * @Test void converges_on_nats() { SUITE.run(BusTransport.NATS, PG, NATS).assertConverged(); }
 * }</pre>
 *
 * <p>Each run starts from empty tables: the consumer's own, the event log, the delivery rows, dead
 * letters, jobs and cursors are truncated with the superuser, and on NATS the stream {@code EVENTS}
 * is created afresh. So a chaos test class owns its {@code PgExtension} database and its {@code
 * NatsServer}; it must not share them with tests that run at the same time. How each fault is made
 * is in the package's README.
 */
public final class ChaosSuite {
  /** The fixed time of every run: the script's {@link ScriptContext#now()} and the handlers' at. */
  public static final Instant START = Instant.parse("2026-12-03T00:00:00Z");

  /** The longest one run may take before it counts as not converging. */
  public static final Duration RUN_LIMIT = Duration.ofSeconds(30);

  /** The default window within which {@link Fault#REORDER} shuffles deliveries. */
  public static final int DEFAULT_REORDER_WINDOW = 6;

  /** The tables of the bus and the log every run starts without. */
  static final List<String> BUS_TABLES =
      List.of(
          "event_log",
          "event_deliveries",
          "bus_dead_letters",
          "jobs",
          "event_consumer_cursors",
          "bus_relay_cursors");

  /**
   * The worker consumer {@code bus} and the relay start where the emptied log will go on: at the
   * counter, not at 0, or the first run's events (numbered after every earlier run's) would look
   * like a log whose start retention removed, and both would stop for a resync. The relay's event
   * at its cursor is gone with the truncated log, so an empty stream agrees with it.
   */
  private static final String CURSORS_AT_THE_COUNTER =
      "WITH c AS (SELECT coalesce((SELECT value FROM sequence_counters WHERE name = 'event_seq'),"
          + " 0) AS v), e AS (INSERT INTO event_consumer_cursors (name, last_seq) SELECT 'bus', v"
          + " FROM c) INSERT INTO bus_relay_cursors (stream, last_seq) SELECT 'EVENTS', v FROM c";

  private final ChaosConsumer consumer;
  private final Script script;
  private final long seed;
  private final int reorderWindow;

  /** The script's event ids of the last run, for {@link #endStateNow}. */
  private volatile List<UUID> lastScriptEvents;

  private ChaosSuite(ChaosConsumer consumer, Script script, long seed, int reorderWindow) {
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.script = Objects.requireNonNull(script, "script");
    if (reorderWindow < 2) {
      throw new IllegalArgumentException("the reorder window must hold at least 2 deliveries");
    }
    this.seed = seed;
    this.reorderWindow = reorderWindow;
  }

  /**
   * Returns the suite of a consumer and a script, with seed 20 and a reorder window of {@value
   * #DEFAULT_REORDER_WINDOW}.
   *
   * @param consumer the consumer
   * @param script the script
   * @return the suite
   */
  public static ChaosSuite of(ChaosConsumer consumer, Script script) {
    return new ChaosSuite(consumer, script, 20, DEFAULT_REORDER_WINDOW);
  }

  /**
   * Returns this suite with another seed for the random choices (how many deliveries, which order).
   *
   * @param seed the seed; the same seed makes the same choices
   * @return a new suite
   */
  public ChaosSuite seed(long seed) {
    return new ChaosSuite(consumer, script, seed, reorderWindow);
  }

  /**
   * Returns this suite with another reorder window.
   *
   * @param window how many deliveries {@link Fault#REORDER} shuffles at a time, at least 2
   * @return a new suite
   */
  public ChaosSuite reorderWindow(int window) {
    return new ChaosSuite(consumer, script, seed, window);
  }

  /**
   * Runs the script clean, then under every fault that applies to the transport.
   *
   * @param transport the transport
   * @param pg the test class's database
   * @param nats the test class's server; only {@link BusTransport#NATS} uses it (may be null for
   *     {@link BusTransport#LOG})
   * @return the report; call {@link ChaosReport#assertConverged()} on it
   */
  public ChaosReport run(BusTransport transport, PgExtension pg, NatsServer nats) {
    return run(
        transport,
        pg,
        nats,
        Arrays.stream(Fault.values()).filter(f -> f.appliesTo(transport)).toList());
  }

  /**
   * Runs the script clean, then under the given faults.
   *
   * @param transport the transport
   * @param pg the test class's database
   * @param nats the test class's server; may be null for {@link BusTransport#LOG}
   * @param faults the faults, each applying to the transport
   * @return the report
   * @throws IllegalArgumentException for a fault that does not exist on the transport
   */
  public ChaosReport run(
      BusTransport transport, PgExtension pg, NatsServer nats, List<Fault> faults) {
    for (Fault f : faults) {
      if (!f.appliesTo(transport)) {
        throw new IllegalArgumentException(
            f + " does not exist on the " + transport + " transport");
      }
    }
    Run clean = once(transport, pg, nats, Optional.empty());
    if (clean.failure().isPresent()) {
      throw new AssertionError(
          "the clean run on " + transport + " did not settle: " + clean.failure().get());
    }
    List<ChaosReport.Outcome> outcomes = new ArrayList<>();
    for (Fault f : faults) {
      Run run = once(transport, pg, nats, Optional.of(f));
      Optional<String> difference =
          run.failure().isPresent() ? run.failure() : clean.state().firstDifference(run.state());
      outcomes.add(new ChaosReport.Outcome(f, difference, run.deliveries(), run.took()));
    }
    return new ChaosReport(transport, clean.state(), clean.deliveries(), outcomes);
  }

  /**
   * Runs the script once, clean, and returns its end state: for a test that compares another way of
   * reaching the state (a projection's replay) with the clean run.
   *
   * @param transport the transport
   * @param pg the test class's database
   * @param nats the test class's server; may be null for {@link BusTransport#LOG}
   * @return the end state
   * @throws AssertionError when the run does not settle within {@link #RUN_LIMIT}
   */
  public EndState clean(BusTransport transport, PgExtension pg, NatsServer nats) {
    Run run = once(transport, pg, nats, Optional.empty());
    if (run.failure().isPresent()) {
      throw new AssertionError("the clean run did not settle: " + run.failure().get());
    }
    return run.state();
  }

  /**
   * Reads the end state the database holds now, naming the script's events as the last run of this
   * suite appended them: for a test that changes the state after {@link #clean} (a projection's
   * replay) and compares it with the clean run's.
   *
   * @param pg the test class's database
   * @return the end state
   * @throws IllegalStateException before any run of this suite
   */
  public EndState endStateNow(PgExtension pg) {
    List<UUID> events = lastScriptEvents;
    if (events == null) {
      throw new IllegalStateException("endStateNow reads after a run of this suite (clean first)");
    }
    try {
      return EndStates.read(pg.owner(), consumer, events);
    } catch (SQLException e) {
      throw new IllegalStateException("the end state could not be read", e);
    }
  }

  /** One run's result. */
  record Run(EndState state, Optional<String> failure, int deliveries, Duration took) {}

  private Run once(BusTransport transport, PgExtension pg, NatsServer nats, Optional<Fault> fault) {
    long started = System.nanoTime();
    try {
      reset(pg);
      ChaosRig rig = new ChaosRig(pg.app(), consumer);
      Random random = new Random(seed * 31 + fault.map(Enum::ordinal).orElse(-1));
      fault.ifPresent(f -> DispatchPlans.arm(rig, f, pg));
      Optional<String> failure;
      try {
        Instant deadline = Instant.now().plus(RUN_LIMIT);
        failure =
            switch (transport) {
              case LOG ->
                  new LogDelivery(rig, script, fault, random, reorderWindow, pg, deadline).drive();
              case NATS -> {
                Objects.requireNonNull(nats, "the NATS transport needs the test's NatsServer");
                yield new NatsDelivery(
                        rig, script, fault, random, reorderWindow, pg, nats, deadline)
                    .drive();
              }
            };
      } finally {
        DispatchFaults.disarm(rig.dispatch);
      }
      lastScriptEvents = List.copyOf(rig.scriptEvents);
      EndState state = EndStates.read(pg.owner(), consumer, rig.scriptEvents);
      return new Run(
          state, failure, rig.deliveries.get(), Duration.ofNanos(System.nanoTime() - started));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("a chaos run was interrupted", e);
    } catch (Exception e) { // NOPMD: the kit's own failure (database, NATS), not the consumer's
      throw new IllegalStateException("a chaos run failed outside the consumer", e);
    }
  }

  private void reset(PgExtension pg) throws SQLException {
    List<String> tables = new ArrayList<>(consumer.ownedTables());
    tables.addAll(BUS_TABLES);
    try (Connection c = pg.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE " + String.join(", ", tables));
      st.execute(CURSORS_AT_THE_COUNTER);
    }
  }
}
