package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BusDispatchCrashContract} on the log transport: the worker consumer {@code bus} queues one
 * {@code bus.dispatch} job per event, a job of a killed worker comes back through the rescuer
 * ({@code jobs.rescueAfter} 4 s here), and its attempt is the delivery count.
 */
class BusDispatchCrashTest extends BusDispatchCrashContract {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @Override
  PgExtension pg() {
    return PG;
  }

  @Override
  String busYaml() {
    return "";
  }

  @Override
  String consumersStep() {
    return "event_consumers";
  }

  @Override
  void beforeAppend() {
    // A job's attempt counts its deliveries by itself.
  }

  @Override
  void awaitAnswered(long afterSeq, int events) throws Exception {
    String done =
        "SELECT count(*) FROM jobs WHERE kind = 'bus.dispatch' AND state = 'completed'"
            + " AND (args->>'seq')::bigint > "
            + afterSeq;
    eventually(() -> count(done) >= events);
    assertThat(count(done)).as("completed bus.dispatch jobs").isEqualTo(events);
  }

  @Override
  void assertUnanswered(UUID event) throws Exception {
    assertThat(PgExtension.rows(PG.owner(), jobOf(event, "state")))
        .as("the job was never completed")
        .containsExactly("running");
  }

  @Override
  void assertDeliveredTwice(UUID event) throws Exception {
    assertThat(PgExtension.rows(PG.owner(), jobOf(event, "attempt")))
        .as("the rescued job's second attempt")
        .containsExactly("2");
  }

  private static String jobOf(UUID event, String column) {
    return "SELECT "
        + column
        + " FROM jobs WHERE kind = 'bus.dispatch' AND args->>'eventId' = '"
        + event
        + "'";
  }
}
