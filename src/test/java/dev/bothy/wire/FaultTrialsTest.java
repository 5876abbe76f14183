package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short version of the process-level fault trials ({@code bench/run.sh faults N} runs the long
 * one, docs/reliability.md): two trials of every fault against real {@code api} and {@code worker}
 * processes, its own PostgreSQL and {@code nats-server}. Every trial must recover with nothing lost
 * and nothing doubled; then the harness's check must find an effect removed and one added by hand,
 * so a check that cannot fail would fail this test.
 */
class FaultTrialsTest {
  private static final int ROUNDS = 2;

  @TempDir Path dir;

  @Test
  void every_fault_twice_loses_and_doubles_nothing_and_the_check_sees_a_broken_effect()
      throws Exception {
    List<FaultTrials.Outcome> outcomes = new ArrayList<>();
    try (FaultTrials trials =
        FaultTrials.start(
            new FaultTrials.Settings(
                dir,
                FaultTrials.BusTransport.NATS,
                Duration.ofMillis(500),
                Duration.ofSeconds(90),
                Duration.ofSeconds(120)))) {
      Random random = new Random(20261220);
      for (int round = 0; round < ROUNDS; round++) {
        for (FaultTrials.Kind kind : FaultTrials.Kind.values()) {
          outcomes.add(trials.trial(kind, random));
        }
      }
      assertThat(outcomes)
          .allSatisfy(
              o -> {
                assertThat(o.recovered()).as(o.toString()).isTrue();
                assertThat(o.lost()).as(o.toString()).isZero();
                assertThat(o.doubled()).as(o.toString()).isZero();
              });
      assertThat(trials.streamHoldsTheLog()).as("EVENTS against the log").isNull();
      assertThat(trials.check()).isEqualTo(new FaultTrials.Counts(0, 0, ""));

      // One probe job more for an event, one delivery row less for a ping: both must show.
      PgExtension.rows(
          trials.superuser(),
          "WITH c AS (INSERT INTO jobs SELECT (json_populate_record(j, json_build_object('id',"
              + " gen_random_uuid()))).* FROM jobs j WHERE j.kind = 'sync.consumer_probe' LIMIT 1"
              + " RETURNING 1) SELECT count(*)::text FROM c");
      PgExtension.rows(
          trials.superuser(),
          "WITH d AS (DELETE FROM event_deliveries WHERE ctid = (SELECT ctid FROM"
              + " event_deliveries LIMIT 1) RETURNING 1) SELECT count(*)::text FROM d");
      FaultTrials.Counts broken = trials.check();
      assertThat(broken.doubled()).as(broken.wrong()).isEqualTo(1);
      assertThat(broken.lost()).as(broken.wrong()).isEqualTo(1);
      assertThat(broken.wrong())
          .isEqualTo("events with extra probe jobs: 1, pings missing a delivery row: 1");
    }
    System.err.println(FaultReport.table(outcomes));
  }
}
