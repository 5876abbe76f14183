package dev.bothy.system;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ResourceRef;
import dev.bothy.system.adapters.postgres.JooqPingRepository;
import dev.bothy.system.app.Echo;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.testkit.BusTransport;
import dev.bothy.testkit.ChaosConsumer;
import dev.bothy.testkit.ChaosReport;
import dev.bothy.testkit.ChaosSuite;
import dev.bothy.testkit.Fault;
import dev.bothy.testkit.Script;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flow 00's {@code system.echo} under the chaos suite (issue 20) on both transports: twelve pings,
 * each with its {@code system.pinged}, delivered clean and then twice or three times, reordered,
 * crashed before and after the commit, with the backend of the handler's unit terminated, and on
 * NATS with the server restarted and the relay killed; every run must end with every ping echoed
 * once at the delivery time, one {@code system.echoed} per ping and one delivery row per event.
 */
class EchoChaosTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  /** The consumer as {@link SystemModule#busConsumers()} declares it, over a run's parts. */
  static final ChaosConsumer ECHO =
      ChaosConsumer.of(
          "system",
          context ->
              List.of(
                  new BusConsumer(
                      SystemModule.ECHO_DURABLE,
                      List.of(
                          BusHandler.of(
                              Echo.NAME,
                              SystemEvents.PINGED,
                              new Echo(new JooqPingRepository()))))),
          List.of("system_pings"),
          owner ->
              PgExtension.rows(
                  owner,
                  "SELECT id || ' ' || status || ' ' || pinged_at || ' '"
                      + " || coalesce(echoed_at::text, '-') FROM system_pings ORDER BY id"));

  /** Twelve pings, recorded as {@code Pings.record} records them, with ids of their own. */
  static final Script PINGS =
      Script.of(
          12,
          (i, ctx) -> {
            UUID ping = ctx.id("ping " + i);
            new JooqPingRepository().insert(ping, ctx.now());
            ctx.append(
                new EventDraft(
                    SystemEvents.PINGED.name(),
                    new ResourceRef(SystemEvents.PING, ping),
                    Optional.empty(),
                    new Pinged(ping)));
          });

  static final ChaosSuite SUITE = ChaosSuite.of(ECHO, PINGS);

  @Test
  void system_echo_converges_under_every_fault_on_the_log_transport() {
    check(SUITE.run(BusTransport.LOG, PG, NATS));
  }

  @Test
  void system_echo_converges_under_every_fault_on_the_nats_transport() {
    check(SUITE.run(BusTransport.NATS, PG, NATS));
  }

  /**
   * Converged, and the faults struck: the clean run echoed every ping once, and every fault that
   * strikes each delivery made dispatch handle each event at least twice.
   */
  private static void check(ChaosReport report) {
    System.out.println(report);
    report.assertConverged();
    assertThat(report.clean().sections().get("tables"))
        .hasSize(12)
        .allSatisfy(line -> assertThat(line).contains(" echoed "));
    assertThat(report.clean().lines("follow-on events")).isEqualTo(12);
    assertThat(report.clean().lines("delivery rows")).isEqualTo(12);
    assertThat(report.clean().lines("dead letters")).isZero();
    assertThat(report.cleanDeliveries()).isEqualTo(12);
    for (Fault f :
        List.of(
            Fault.DUPLICATES,
            Fault.CRASH_BEFORE_COMMIT,
            Fault.CRASH_AFTER_COMMIT,
            Fault.BACKEND_TERMINATED)) {
      assertThat(report.outcome(f).deliveries()).as(f.name()).isGreaterThanOrEqualTo(24);
    }
  }
}
