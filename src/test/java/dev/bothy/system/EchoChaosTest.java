package dev.bothy.system;

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
import dev.bothy.testkit.ChaosSuite;
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
    SUITE.run(BusTransport.LOG, PG, NATS).assertConverged();
  }

  @Test
  void system_echo_converges_under_every_fault_on_the_nats_transport() {
    SUITE.run(BusTransport.NATS, PG, NATS).assertConverged();
  }
}
