package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.Streams;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ConsumerInfo;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BusDispatchCrashContract} on the NATS transport: the workers run with {@code bus.nats.url}
 * on the test's {@code nats-server}, so each relays the log to {@code EVENTS} (one holds the lease)
 * and pulls the durable {@code probe_main}. A message of a killed worker comes back after {@code
 * bus.consumers.ackWait} (5 s here, {@code keepAliveInterval} 500 ms: with 2 s a cold worker JVM on
 * a busy machine once let the first delivery's wait run out before its first keep-alive, and the
 * message came back to the same worker before the kill); the deliveries are counted on the durable
 * itself: each delivery, a redelivery too, takes the next consumer sequence, so the consumer
 * sequence advancing by 2 while the stream sequence advances by 1 is one message delivered twice.
 * About 30 s: six worker JVMs start one after the other on a shared 2-core machine.
 */
class BusDispatchNatsCrashTest extends BusDispatchCrashContract {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final String DURABLE = "probe_main";

  private ConsumerInfo before;

  @Override
  PgExtension pg() {
    return PG;
  }

  @Override
  String busYaml() {
    return "  nats:\n    url: "
        + NATS.url()
        + "\n  relay:\n    pollInterval: 100ms\n    publishAckTimeout: 1s\n    leaseTimeout: 5s\n"
        + "  consumers:\n    ackWait: 5s\n    keepAliveInterval: 500ms\n    fetchWait: 1s\n";
  }

  @Override
  String consumersStep() {
    return "bus_nats_consumers";
  }

  @Override
  void beforeAppend() throws Exception {
    before = info();
  }

  @Override
  void awaitAnswered(long afterSeq, int events) throws Exception {
    eventually(
        () -> {
          ConsumerInfo now = info();
          return deliveriesAfter(afterSeq) >= events
              && now.getNumPending() == 0
              && now.getNumAckPending() == 0;
        });
    assertThat(deliveriesAfter(afterSeq)).as("delivery rows").isEqualTo(events);
    ConsumerInfo now = info();
    assertThat(now.getNumAckPending()).as("messages delivered and not acked").isZero();
    assertThat(now.getNumPending()).as("messages not delivered yet").isZero();
    assertThat(now.getDelivered().getStreamSequence() - before.getDelivered().getStreamSequence())
        .as("messages of the events delivered")
        .isEqualTo(events);
  }

  @Override
  void assertUnanswered(UUID event) throws Exception {
    ConsumerInfo now = info();
    assertThat(now.getNumAckPending()).as("the message delivered and not acked").isEqualTo(1);
    assertThat(
            now.getDelivered().getConsumerSequence() - before.getDelivered().getConsumerSequence())
        .as("deliveries before the kill")
        .isEqualTo(1);
  }

  @Override
  void assertDeliveredTwice(UUID event) throws Exception {
    ConsumerInfo now = info();
    assertThat(now.getDelivered().getStreamSequence() - before.getDelivered().getStreamSequence())
        .as("messages delivered")
        .isEqualTo(1);
    assertThat(
            now.getDelivered().getConsumerSequence() - before.getDelivered().getConsumerSequence())
        .as("deliveries of the one message: the killed worker's and the restarted one's")
        .isEqualTo(2);
    assertThat(now.getAckFloor().getConsumerSequence())
        .as("the second delivery acked")
        .isEqualTo(now.getDelivered().getConsumerSequence());
  }

  private static ConsumerInfo info() throws Exception {
    Connection c =
        Nats.connect(
            Options.builder().server(NATS.url()).connectionTimeout(Duration.ofSeconds(5)).build());
    try {
      return c.jetStreamManagement().getConsumerInfo(Streams.EVENTS, DURABLE);
    } finally {
      c.close();
    }
  }
}
