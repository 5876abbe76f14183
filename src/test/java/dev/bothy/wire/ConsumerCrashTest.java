package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.ConsumerFixture;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Beyond the seed: two real worker processes with the probe consumer while writers append; one of
 * them is killed with SIGKILL at random moments and restarted, again and again. Every event must
 * end with exactly its two probe jobs and the cursor at the head.
 */
class ConsumerCrashTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final int KILLS = 20;
  private static final Duration START = Duration.ofSeconds(60);

  @TempDir Path dir;

  private Path config(String name) throws Exception {
    return ProbeWorkers.config(dir, name, PG.jdbcUrl(), "");
  }

  private ChildJvm worker(Path config) throws Exception {
    return ProbeWorkers.start(dir, config);
  }

  private static void awaitConsumers(ChildJvm worker) throws Exception {
    ProbeWorkers.awaitStarted(worker, START);
  }

  private static long scalar(String sql) throws SQLException {
    return PgExtension.scalar(PG.owner(), sql);
  }

  @Test
  void killing_a_worker_mid_round_again_and_again_creates_every_job_exactly_once()
      throws Exception {
    Path configA = config("a");
    Path configB = config("b");
    EventLogFixture log = new EventLogFixture(PG.app());
    AtomicBoolean writing = new AtomicBoolean(true);
    ExecutorService writers = Executors.newFixedThreadPool(2);
    Random random = new Random(20261201);
    ChildJvm a = worker(configA);
    try (ChildJvm b = worker(configB)) {
      awaitConsumers(a);
      awaitConsumers(b);
      long start = scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = 'push'");
      List<Future<?>> done =
          List.of(
              writers.submit(() -> write(log, writing)), writers.submit(() -> write(log, writing)));
      for (int kill = 0; kill < KILLS; kill++) {
        Thread.sleep(100 + random.nextInt(600));
        a.process().destroyForcibly();
        assertThat(a.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        a.close();
        a = worker(configA);
        awaitConsumers(a);
      }
      writing.set(false);
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      long head = scalar("SELECT max(seq) FROM event_log");
      long deadline = System.nanoTime() + START.toNanos();
      while (scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = 'push'") != head
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = 'push'"))
          .as("the cursor reached the head")
          .isEqualTo(head);
      Map<Long, Long> perSeq = ConsumerFixture.jobsPerSeq(PG.owner());
      assertThat(head - start).as("events were appended during the kills").isGreaterThan(100);
      for (long seq = start + 1; seq <= head; seq++) {
        assertThat(perSeq.get(seq)).as("jobs of event " + seq).isEqualTo(2L);
      }
      assertThat(perSeq.keySet()).allSatisfy(s -> assertThat(s).isBetween(start + 1, head));
      b.terminate(Duration.ofSeconds(60));
      a.terminate(Duration.ofSeconds(60));
    } finally {
      writing.set(false);
      writers.shutdownNow();
      a.close();
    }
  }

  private static Void write(EventLogFixture log, AtomicBoolean writing) throws Exception {
    Random random = new Random();
    while (writing.get()) {
      log.append(Ids.newId(), 1 + random.nextInt(3));
      Thread.sleep(random.nextInt(20));
    }
    return null;
  }
}
