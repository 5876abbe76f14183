package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.LogTail;
import dev.bothy.sync.TailSignal;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TailTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final UUID SAM = Ids.newId();
  private static final String TAIL_APPLICATION = "bothy-tail-test";

  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private PgUnitOfWork uow;
  private AppendService appender;
  private EventLogService log;
  private EventLogFixture events;
  private TailService tail;

  @BeforeEach
  void setUp() {
    EventLogFixture fixture = new EventLogFixture(PG.app());
    uow = fixture.uow;
    appender = fixture.appender;
    log = fixture.log;
    events = fixture;
  }

  @AfterEach
  void stopTail() {
    if (tail != null) {
      tail.stop();
    }
  }

  private TailService tail(int buffer) {
    tail = new TailService(log, 50, buffer, Duration.ofMillis(200), failures::add);
    return tail;
  }

  private void append(int n) {
    events.append(SAM, n);
  }

  @Test
  void the_tail_delivers_in_order_across_killed_listen_backends_and_loses_nothing()
      throws Exception {
    long start = log.head();
    TailService t = tail(100_000);
    t.start();
    try (Listener listener =
            new Listener(
                new PoolSettings(
                    PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), TAIL_APPLICATION),
                JooqEventRepository.CHANNEL,
                Duration.ofMillis(100),
                Duration.ofMillis(500),
                payload -> t.poke(),
                t::poke,
                failures::add);
        LogTail.Subscription sub = t.subscribe(start)) {
      listener.start();
      ExecutorService writers = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
          done.add(
              writers.submit(
                  () -> {
                    for (int i = 0; i < 40; i++) {
                      append(1 + i % 3);
                    }
                    return null;
                  }));
        }
        for (int kill = 0; kill < 3; kill++) {
          Thread.sleep(150);
          terminate(TAIL_APPLICATION);
        }
        for (Future<?> f : done) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        writers.shutdownNow();
      }
      long head = log.head();
      List<Long> received = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while ((received.isEmpty() || received.get(received.size() - 1) < head)
          && System.nanoTime() < deadline) {
        sub.poll(Duration.ofMillis(200))
            .ifPresent(
                s -> {
                  assertThat(s).isInstanceOf(TailSignal.Delivered.class);
                  received.add(((TailSignal.Delivered) s).event().seq());
                });
      }

      assertThat(received).hasSize((int) (head - start));
      for (int i = 0; i < received.size(); i++) {
        assertThat(received.get(i)).isEqualTo(start + 1 + i);
      }
      assertThat(failures).isEmpty();
    }
  }

  @Test
  void a_subscriber_from_an_older_number_gets_the_backlog_then_live_events() throws Exception {
    long start = log.head();
    append(3);
    TailService t = tail(100);
    t.start();
    try (LogTail.Subscription sub = t.subscribe(start)) {
      append(2);
      t.poke();
      List<Long> received = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        TailSignal s = sub.poll(Duration.ofSeconds(10)).orElseThrow();
        received.add(((TailSignal.Delivered) s).event().seq());
      }

      assertThat(received).containsExactly(start + 1, start + 2, start + 3, start + 4, start + 5);
    }
  }

  @Test
  void a_slow_subscriber_is_dropped_with_a_resync_and_a_fast_one_keeps_receiving()
      throws Exception {
    long start = log.head();
    TailService t = tail(5);
    t.start();
    try (LogTail.Subscription slow = t.subscribe(start);
        LogTail.Subscription fast = t.subscribe(start)) {
      List<Long> fastSeen = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        append(3);
        t.poke();
        long target = start + 3L * (i + 1);
        while (fastSeen.isEmpty() || fastSeen.get(fastSeen.size() - 1) < target) {
          TailSignal s = fast.poll(Duration.ofSeconds(10)).orElseThrow();
          fastSeen.add(((TailSignal.Delivered) s).event().seq());
        }
      }

      assertThat(fastSeen).hasSize(12);
      TailSignal first = slow.poll(Duration.ofSeconds(5)).orElseThrow();
      assertThat(first).isInstanceOf(TailSignal.Resync.class);
      assertThat(((TailSignal.Resync) first).afterSeq()).isEqualTo(start);
      assertThat(failures).isEmpty();
    }
  }

  @Test
  void a_hole_in_the_numbers_fails_the_process() throws Exception {
    append(1);
    TailService t = tail(100);
    t.start();
    long head = log.head();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      // A row two numbers ahead, written around the counter: a bug the tail must not skip.
      st.execute(
          "INSERT INTO event_log (seq, id, type, occurred_at, resource_type, resource_id, payload)"
              + " VALUES ("
              + (head + 2)
              + ", gen_random_uuid(), 'settings.updated', now(), 'user', gen_random_uuid(),"
              + " '{\"changedKeys\":[]}')");
    }
    t.poke();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (failures.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }

    assertThat(failures).hasSize(1);
    assertThat(failures.get(0))
        .hasMessageContaining("event log gap")
        .hasMessageContaining("expected seq " + (head + 1));
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM event_log WHERE seq = " + (head + 2));
    }
  }

  @Test
  void a_hole_in_a_subscribers_backlog_fails_the_process_too() throws Exception {
    long start = log.head();
    append(3);
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM event_log WHERE seq = " + (start + 2));
    }
    TailService t = tail(100);
    t.start();
    try (LogTail.Subscription sub = t.subscribe(start)) {
      TailSignal first = sub.poll(Duration.ofSeconds(5)).orElseThrow();
      TailSignal second = sub.poll(Duration.ofSeconds(5)).orElseThrow();

      assertThat(((TailSignal.Delivered) first).event().seq()).isEqualTo(start + 1);
      assertThat(second).isInstanceOf(TailSignal.Resync.class);
      assertThat(failures).hasSize(1);
      assertThat(failures.get(0)).hasMessageContaining("expected seq " + (start + 2));
    }
  }

  private static void terminate(String application) throws SQLException {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
              + application
              + "'");
    }
  }
}
