package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.bus.adapters.postgres.JooqDeliveryRepository;
import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.DeliveryRepository;
import dev.bothy.bus.app.ProjectionReplay;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.system.SystemEvents;
import dev.bothy.system.adapters.postgres.JooqEchoRepository;
import dev.bothy.system.app.Echoes;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reset of {@link ProjectionReplay} on real PostgreSQL, as the runtime role: the projection's
 * rows and its delivery rows go in one transaction or not at all, the reset waits for a handler's
 * unit in flight, and the restart runs only after a committed reset.
 */
class ProjectionReplayTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String DURABLE = "system_echoes";
  private static final String ROWS =
      "SELECT ping_id || ' ' || echo_seq FROM system_echoes ORDER BY ping_id";
  private static final String DELIVERIES =
      "SELECT handler || ' ' || event_id FROM event_deliveries ORDER BY handler, event_id";

  private final EventLogFixture fixture =
      new EventLogFixture(PG.app(), Clock.system(), 64 * 1024, (n, nanos) -> {}, 2);
  private final JooqEchoRepository echoes = new JooqEchoRepository();
  private final List<String> restarted = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE system_echoes, event_deliveries");
    }
    fixture.uow.run(
        () -> {
          for (int i = 1; i <= 3; i++) {
            UUID event = UUID.randomUUID();
            echoes.insert(UUID.randomUUID(), UUID.randomUUID(), event, i, Instant.now());
            new JooqDeliveryRepository().claim(Echoes.NAME, event, Instant.now());
          }
          // Another consumer's row, which the replay leaves alone.
          new JooqDeliveryRepository().claim("system.echo", UUID.randomUUID(), Instant.now());
          return null;
        });
  }

  private BusConsumer projection(Projection.Reset reset) {
    return BusConsumer.projection(
        DURABLE,
        List.of(BusHandler.of(Echoes.NAME, SystemEvents.ECHOED, new Echoes(echoes))),
        new Projection(List.of("system_echoes"), reset));
  }

  private ProjectionReplay replay(BusConsumer consumer, DeliveryRepository deliveries) {
    return new ProjectionReplay(
        List.of(consumer),
        fixture.uow,
        new PgProjectionLock(),
        deliveries,
        (c, progress) -> {
          restarted.add(c.durable());
          return "from the start";
        });
  }

  @Test
  void the_reset_deletes_the_projection_and_its_delivery_rows_only_then_restarts()
      throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();

    ProjectionReplay.Report report =
        replay(projection(echoes::deleteAll), new JooqDeliveryRepository())
            .replay(DURABLE, lines::add);

    assertThat(report.projectionRows()).isEqualTo(3);
    assertThat(report.deliveryRows()).isEqualTo(3);
    assertThat(PgExtension.rows(PG.owner(), ROWS)).isEmpty();
    assertThat(PgExtension.rows(PG.owner(), DELIVERIES))
        .singleElement()
        .asString()
        .startsWith("system.echo ");
    assertThat(restarted).containsExactly(DURABLE);
    assertThat(lines)
        .anyMatch(l -> l.startsWith("pausing system_echoes"))
        .anyMatch(
            l -> l.startsWith("reset system_echoes: 3 rows of [system_echoes] and 3 delivery"))
        .anyMatch(l -> l.equals("restarted system_echoes: from the start"));
  }

  @Test
  void a_reset_that_fails_after_deleting_leaves_every_row_and_restarts_nothing() throws Exception {
    List<String> rows = PgExtension.rows(PG.owner(), ROWS);
    List<String> deliveries = PgExtension.rows(PG.owner(), DELIVERIES);
    ProjectionReplay failingReset =
        replay(
            projection(
                () -> {
                  echoes.deleteAll();
                  throw new IllegalStateException("the disk of Sam is full");
                }),
            new JooqDeliveryRepository());

    assertThatThrownBy(() -> failingReset.replay(DURABLE, l -> {}))
        .hasMessageContaining("the disk of Sam is full");

    assertThat(PgExtension.rows(PG.owner(), ROWS)).isEqualTo(rows).hasSize(3);
    assertThat(PgExtension.rows(PG.owner(), DELIVERIES)).isEqualTo(deliveries);
    assertThat(restarted).isEmpty();
  }

  @Test
  void a_failure_after_the_delivery_rows_went_leaves_them_and_the_projection() throws Exception {
    List<String> rows = PgExtension.rows(PG.owner(), ROWS);
    List<String> deliveries = PgExtension.rows(PG.owner(), DELIVERIES);
    JooqDeliveryRepository real = new JooqDeliveryRepository();
    DeliveryRepository failingAfterDelete =
        new DeliveryRepository() {
          @Override
          public boolean claim(String handler, UUID eventId, Instant handledAt) {
            return real.claim(handler, eventId, handledAt);
          }

          @Override
          public boolean exists(String handler, UUID eventId) {
            return real.exists(handler, eventId);
          }

          @Override
          public int deleteOlderThan(Instant before, int limit) {
            return real.deleteOlderThan(before, limit);
          }

          @Override
          public int deleteAllOf(List<String> handlers) {
            real.deleteAllOf(handlers);
            throw BothyException.internal("the connection of Robin broke");
          }
        };

    assertThatThrownBy(
            () ->
                replay(projection(echoes::deleteAll), failingAfterDelete).replay(DURABLE, l -> {}))
        .hasMessageContaining("the connection of Robin broke");

    assertThat(PgExtension.rows(PG.owner(), ROWS)).isEqualTo(rows);
    assertThat(PgExtension.rows(PG.owner(), DELIVERIES)).isEqualTo(deliveries).hasSize(4);
    assertThat(restarted).isEmpty();
  }

  @Test
  void the_reset_waits_for_a_handler_unit_in_flight_and_pauses_new_ones() throws Exception {
    PgProjectionLock lock = new PgProjectionLock();
    try (Connection handler = PG.app().getConnection();
        Statement st = handler.createStatement()) {
      handler.setAutoCommit(false);
      // A dispatch unit of the projection, running: it holds the lock shared.
      st.execute(
          "SELECT pg_try_advisory_xact_lock_shared("
              + PgProjectionLock.LOCK_CLASS
              + ", "
              + DURABLE.hashCode()
              + ")");
      CompletableFuture<ProjectionReplay.Report> running =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return replay(projection(echoes::deleteAll), new JooqDeliveryRepository())
                      .replay(DURABLE, l -> {});
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      // Waiting for the exclusive lock, the reset has deleted nothing; a new unit is paused.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (fixture.uow.run(() -> lock.tryShared(DURABLE))) {
        assertThat(System.nanoTime()).as("the reset queues for the lock").isLessThan(deadline);
        Thread.sleep(10);
      }
      assertThat(running).isNotDone();
      assertThat(PgExtension.rows(PG.owner(), ROWS)).hasSize(3);

      handler.commit();

      assertThat(running.get(10, TimeUnit.SECONDS).projectionRows()).isEqualTo(3);
      assertThat(fixture.uow.run(() -> lock.tryShared(DURABLE))).as("resumed").isTrue();
    }
  }

  @Test
  void unknown_durables_and_consumers_that_are_no_projection_are_refused_before_any_write() {
    BusConsumer echo =
        new BusConsumer(
            "system_echo",
            List.of(BusHandler.of("system.echo", SystemEvents.PINGED, (tx, e, at) -> {})));
    List<BusConsumer> consumers = List.of(echo, projection(echoes::deleteAll));

    assertThatThrownBy(() -> ProjectionReplay.projection(consumers, "system_echo"))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("the bus consumer system_echo is not a projection")
        .hasMessageContaining("the projections are [system_echoes]");
    assertThatThrownBy(() -> ProjectionReplay.projection(consumers, "sam_feed"))
        .hasMessage(
            "no bus consumer sam_feed; the projections are [system_echoes] and the other consumers"
                + " [system_echo]");
    assertThat(ProjectionReplay.projection(consumers, DURABLE).isProjection()).isTrue();
  }
}
