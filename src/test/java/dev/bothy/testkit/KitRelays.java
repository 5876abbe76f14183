package dev.bothy.testkit;

import dev.bothy.bus.RelayState;
import dev.bothy.bus.RelayTracer;
import dev.bothy.bus.Streams;
import dev.bothy.bus.adapters.nats.JetStreamClient;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.adapters.postgres.PgRelayLease;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.bus.app.RelayRunner;
import dev.bothy.bus.app.RelayService;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The relays of a NATS chaos run, built as {@code BusModule.startRelay} builds one (the real
 * service, runner and lease, each relay with a lease session named after it), polling instead of
 * listening; {@link #kill} ends one as the death of its process does (D-CK-1).
 */
final class KitRelays {
  private static final Duration RELAY_POLL = Duration.ofMillis(50);
  private static final Duration PUBLISH_ACK_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(3);

  /** The lease backend of one relay, by its application name, ended as a killed process's is. */
  private static final String TERMINATE_RELAY_SQL =
      "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
          + " WHERE application_name = ? AND datname = current_database()";

  /** One relay: its lease session's application name, its service and its loop. */
  record Relay(String name, RelayService service, RelayRunner runner) {}

  private final ChaosRig rig;
  private final PgExtension pg;
  private final List<Throwable> fatal;
  private final List<Relay> relays = new CopyOnWriteArrayList<>();

  KitRelays(ChaosRig rig, PgExtension pg, List<Throwable> fatal) {
    this.rig = rig;
    this.pg = pg;
    this.fatal = fatal;
  }

  Relay start(Connection connection, String name) throws Exception {
    RelayService service =
        new RelayService(
            new RelayService.Settings(Streams.EVENTS, 16, 4, Duration.ofMillis(200)),
            rig.uow,
            new JooqRelayCursorRepository(),
            rig.log,
            new JetStreamClient(
                connection, Streams.EVENTS, Streams::subjectOf, PUBLISH_ACK_TIMEOUT),
            new PgRelayLease(
                new PoolSettings(pg.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), name),
                LEASE_TIMEOUT),
            RelayMetrics.NONE,
            RelayTracer.NONE,
            Clock.system());
    RelayRunner runner =
        new RelayRunner(
            service::round,
            new RelayRunner.Waker() {
              @Override
              public void start(Runnable onWake) {
                // Polled every RELAY_POLL; the log's notifications are the wiring's business.
              }

              @Override
              public void close() {
                // Nothing started.
              }
            },
            RELAY_POLL,
            Clock.system(),
            Pause.real(),
            service::stop,
            fatal::add);
    service.ensureCursor();
    runner.start();
    Relay relay = new Relay(name, service, runner);
    relays.add(relay);
    return relay;
  }

  /** Ends the relay as a killed process ends: its lease session cut, its loop gone. */
  void kill(Relay relay) throws SQLException {
    try (java.sql.Connection c = pg.superuser().getConnection();
        PreparedStatement s = c.prepareStatement(TERMINATE_RELAY_SQL)) {
      s.setString(1, relay.name());
      try (ResultSet r = s.executeQuery()) {
        if (!r.next() || !r.getBoolean(1)) {
          // Without a terminated session this would be a graceful stop, not a kill.
          throw new IllegalStateException(
              "the lease session of relay " + relay.name() + " was not found to terminate");
        }
      }
    }
    relay.runner().stop(Duration.ZERO);
  }

  /** The relays' modes, for a report. */
  List<RelayState.Mode> modes() {
    return relays.stream().map(r -> r.service().state().mode()).toList();
  }

  /** Stops every relay's loop that still runs. */
  void stopAll() {
    for (Relay relay : relays) {
      relay.runner().stop(Duration.ofSeconds(2));
    }
  }
}
