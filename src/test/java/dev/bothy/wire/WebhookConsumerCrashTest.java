package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.bothy.kernel.Ids;
import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.domain.WebhookSecret;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real worker processes run the {@code webhooks} consumer while a writer appends; one of them
 * is killed with SIGKILL at random moments mid-round and restarted. Every event must end with
 * exactly one {@code webhooks.deliver} job for each of the two subscriptions.
 */
class WebhookConsumerCrashTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final int KILLS = 2;
  private static final Duration START = Duration.ofSeconds(60);

  @TempDir Path dir;

  private Path config(String name) throws Exception {
    return ProbeWorkers.config(
        dir,
        name,
        PG.jdbcUrl(),
        "webhooks:\n  allowedNetworks: [127.0.0.0/8]\n  allowPlainHttp: true\n");
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

  private static UUID subscribe(String url) throws SQLException {
    UUID id = Ids.newId();
    try (Connection c = PG.owner().getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO webhook_subscriptions (id, url, event_types, secret, ordered,"
                    + " rate_limit, state, created_at, updated_at)"
                    + " VALUES (?, ?, ARRAY['settings.updated'], ?, false, 1000, 'active',"
                    + " now(), now())")) {
      st.setObject(1, id);
      st.setString(2, url);
      st.setString(3, WebhookSecret.generate().encoded());
      st.executeUpdate();
    }
    return id;
  }

  /** The delivery jobs per subscription id and event seq, in any state. */
  private static Map<String, Long> jobsPerSubscriptionAndSeq() throws SQLException {
    Map<String, Long> out = new HashMap<>();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT args->>'subscriptionId', (args->>'seq')::bigint, count(*) FROM jobs"
                    + " WHERE kind = 'webhooks.deliver' GROUP BY 1, 2")) {
      while (rs.next()) {
        out.put(rs.getString(1) + "/" + rs.getLong(2), rs.getLong(3));
      }
    }
    return out;
  }

  @Test
  void killing_a_worker_mid_round_creates_exactly_one_delivery_job_per_subscription_and_event()
      throws Exception {
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    List<UUID> subscriptions = List.of(subscribe(url), subscribe(url));
    Path configA = config("a");
    Path configB = config("b");
    EventLogFixture log = new EventLogFixture(PG.app());
    AtomicBoolean writing = new AtomicBoolean(true);
    ExecutorService writers = Executors.newSingleThreadExecutor();
    Random random = new Random(20261202);
    ChildJvm a = worker(configA);
    try (ChildJvm b = worker(configB)) {
      awaitConsumers(a);
      awaitConsumers(b);
      long start = scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = 'webhooks'");
      Future<?> done = writers.submit(() -> write(log, writing));
      for (int kill = 0; kill < KILLS; kill++) {
        Thread.sleep(100 + random.nextInt(600));
        a.process().destroyForcibly();
        assertThat(a.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        a.close();
        a = worker(configA);
        awaitConsumers(a);
      }
      writing.set(false);
      done.get(60, TimeUnit.SECONDS);
      long head = scalar("SELECT max(seq) FROM event_log");
      long deadline = System.nanoTime() + START.toNanos();
      while (scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = 'webhooks'") != head
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = 'webhooks'"))
          .as("the cursor reached the head")
          .isEqualTo(head);
      assertThat(head - start).as("events were appended during the kills").isGreaterThan(50);
      Map<String, Long> jobs = jobsPerSubscriptionAndSeq();
      for (long seq = start + 1; seq <= head; seq++) {
        for (UUID id : subscriptions) {
          assertThat(jobs.get(id + "/" + seq))
              .as("delivery jobs of event " + seq + " to " + id)
              .isEqualTo(1L);
        }
      }
      b.terminate(Duration.ofSeconds(60));
      a.terminate(Duration.ofSeconds(60));
    } finally {
      writing.set(false);
      writers.shutdownNow();
      a.close();
      receiver.stop(0);
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
