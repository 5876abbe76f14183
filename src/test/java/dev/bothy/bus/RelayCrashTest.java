package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.bothy.bus.app.RelayService;
import dev.bothy.testing.CapturedLog;
import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relay processes killed with SIGKILL (issue 18's tests beyond one JVM): child JVMs run the real
 * relay ({@link RelayProcess}) on the class's database and a test-owned {@code nats-server}. One
 * test kills a relay at the moment the stream has acknowledged a window and the cursor does not
 * know it yet, twice; the other lets two processes race for the lease while writers append and
 * kills the holder mid-run. The stream must end holding every event once, in log order.
 */
class RelayCrashTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Duration WITHIN = Duration.ofSeconds(60);

  @TempDir Path dir;

  private RelayHarness harness;
  private final List<ChildJvm> children = new ArrayList<>();

  @BeforeEach
  void fresh() throws Exception {
    harness = new RelayHarness(PG, NATS);
    harness.freshStream(Duration.ofMinutes(2));
  }

  /**
   * Removes the events up to {@code start}, as retention would, so a test's relays start at its own
   * first event (the cursor row starts before the oldest retained event).
   */
  private static void forgetUpTo(long start) throws Exception {
    PgExtension.rows(
        PG.superuser(),
        "WITH d AS (DELETE FROM event_log WHERE seq <= "
            + start
            + " RETURNING 1) SELECT count(*)::text FROM d");
  }

  @AfterEach
  void close() throws Exception {
    for (ChildJvm child : children) {
      child.close();
    }
    harness.close();
  }

  private ChildJvm relay(String name, long blockAt) throws Exception {
    // Few starts, but the coverage agent would double each; the relay is covered in-process.
    ChildJvm child =
        ChildJvm.startUncovered(
            RelayProcess.class.getName(),
            dir,
            List.of(),
            // Not on the command line, which every local user can read: the URL holds the
            // embedded server's password (D-SEC-2).
            Map.of(RelayProcess.URL_VARIABLE, PG.jdbcUrl()),
            name,
            NATS.url(),
            Long.toString(blockAt),
            dir.resolve("publishing.lock").toString());
    children.add(child);
    return child;
  }

  /** The marker lines of a child that start with a prefix, in the order it printed them. */
  private static List<String> lines(ChildJvm child, String prefix) {
    return Arrays.stream(child.output().split("\n")).filter(l -> l.startsWith(prefix)).toList();
  }

  /** Waits until a child printed {@code count} lines with a prefix; returns the last of them. */
  private static String await(ChildJvm child, String prefix, int count) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      List<String> found = lines(child, prefix);
      if (found.size() >= count) {
        return found.get(count - 1);
      }
      if (!child.process().isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError(
            "no " + count + " lines '" + prefix + "' from the relay process:\n" + child.output());
      }
      Thread.sleep(20);
    }
  }

  private static long field(String line, String key) {
    for (String part : line.split(" ")) {
      if (part.startsWith(key + "=")) {
        return Long.parseLong(part.substring(key.length() + 1));
      }
    }
    throw new AssertionError("no " + key + " in: " + line);
  }

  private static void kill(ChildJvm child) throws InterruptedException {
    // Destroying a Process forcibly sends SIGKILL to exactly the child this test started.
    child.process().destroyForcibly();
    assertThat(child.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
  }

  private List<Long> streamBothySeqs() throws Exception {
    return harness.streamMessages().stream().map(RelayHarness.Stored::bothySeq).toList();
  }

  private static List<Long> range(long from, long to) {
    List<Long> all = new ArrayList<>();
    for (long s = from; s <= to; s++) {
      all.add(s);
    }
    return all;
  }

  @Test
  void a_relay_process_killed_between_the_acks_and_the_cursor_update_loses_and_doubles_nothing()
      throws Exception {
    long start = harness.log.log.head();
    // 400 events in units of 20; windows of 20 put a compare-and-set at every twentieth event.
    for (int i = 0; i < 20; i++) {
      harness.log.append(UUID.randomUUID(), 20);
    }
    long head = harness.log.log.head();
    assertThat(head - start).isEqualTo(400);
    forgetUpTo(start);

    // Alex is killed mid-log: the stream acknowledged up to start + 200, the cursor says 180.
    ChildJvm alex = relay("alex", start + 200);
    String blocked = await(alex, RelayProcess.BLOCKED, 1);
    assertThat(field(blocked, "expected")).isEqualTo(start + 180);
    assertThat(field(blocked, "next")).isEqualTo(start + 200);
    assertThat(harness.cursor()).hasValue(start + 180);
    assertThat(streamBothySeqs()).isEqualTo(range(start + 1, start + 200));
    kill(alex);

    // Sam takes over, must move the cursor to the stream without publishing those 20 again, and
    // is killed in turn at the last window of the log.
    ChildJvm sam = relay("sam", head);
    String samBlocked = await(sam, RelayProcess.BLOCKED, 1);
    assertThat(field(samBlocked, "expected")).isEqualTo(head - 20);
    assertThat(field(samBlocked, "next")).isEqualTo(head);
    String firstCas = await(sam, RelayProcess.CAS, 1);
    assertThat(field(firstCas, "expected")).as(firstCas).isEqualTo(start + 180);
    assertThat(field(firstCas, "next")).as(firstCas).isEqualTo(start + 200);
    assertThat(sam.output())
        .contains(
            "bus relay cursor moved to the stream: stream=EVENTS cursor="
                + (start + 180)
                + " stream_last_seq="
                + (start + 200));
    assertThat(field(await(sam, RelayProcess.PUBLISH, 1), "first"))
        .as("sam's first window")
        .isEqualTo(start + 201);
    assertThat(harness.cursor()).hasValue(head - 20);
    assertThat(streamBothySeqs()).isEqualTo(range(start + 1, head));
    kill(sam);

    // Robin, in this JVM, repairs the last window the same way and relays what came since.
    harness.log.append(UUID.randomUUID(), 30);
    try (CapturedLog captured = CapturedLog.of(RelayService.class)) {
      harness.startRelay("relay-robin");
      harness.awaitCursorAtHead(WITHIN);
      assertThat(captured.events().stream().map(ILoggingEvent::getFormattedMessage))
          .contains(
              "bus relay cursor moved to the stream: stream=EVENTS cursor="
                  + (head - 20)
                  + " stream_last_seq="
                  + head);
    }
    harness.assertStreamHoldsTheLogAfter(start);
    assertThat(harness.cursor()).hasValue(harness.log.log.head());
  }

  @Test
  void two_relay_processes_racing_for_the_lease_never_publish_at_once_and_the_survivor_takes_over()
      throws Exception {
    long start = harness.log.log.head();
    harness.log.append(UUID.randomUUID(), 1);
    forgetUpTo(start);
    ChildJvm robin = relay("robin", 0);
    ChildJvm alex = relay("alex", 0);
    await(robin, RelayProcess.STARTED, 1);
    await(alex, RelayProcess.STARTED, 1);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      Random random = new Random(20261202L + w);
      Thread writer =
          new Thread(
              () -> {
                try {
                  while (writing.get()) {
                    harness.log.append(UUID.randomUUID(), 1 + random.nextInt(5));
                    Thread.sleep(random.nextInt(10));
                  }
                } catch (InterruptedException | RuntimeException e) {
                  failures.add(e);
                }
              });
      writers.add(writer);
      writer.start();
    }
    try {
      // The first holder publishes a while; then its lease backend is terminated under it, and
      // either process may hold the lease next.
      ChildJvm first = awaitHolder(List.of(robin, alex), 1);
      await(first, RelayProcess.PUBLISH, 5);
      PgExtension.rows(
          PG.superuser(),
          "SELECT count(pg_terminate_backend(pid))::text FROM pg_stat_activity"
              + " WHERE application_name LIKE 'relay-lease-%' AND pid IN"
              + " (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)");
      ChildJvm holder = awaitHolder(List.of(robin, alex), 2);
      int published = lines(holder, RelayProcess.PUBLISH).size();
      await(holder, RelayProcess.PUBLISH, published + 3);

      // SIGKILL the holder mid-run: the other process takes over within bus.relay.leaseTimeout.
      ChildJvm survivor = holder == robin ? alex : robin;
      int taken = lines(survivor, RelayProcess.LEASE_TAKEN).size();
      int survivorPublished = lines(survivor, RelayProcess.PUBLISH).size();
      long killedAt = System.nanoTime();
      kill(holder);
      await(survivor, RelayProcess.LEASE_TAKEN, taken + 1);
      Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
      assertThat(takeover).isLessThan(RelayProcess.LEASE_TIMEOUT);
      await(survivor, RelayProcess.PUBLISH, survivorPublished + 3);
    } finally {
      writing.set(false);
      for (Thread writer : writers) {
        writer.join(WITHIN.toMillis());
      }
    }
    assertThat(failures).isEmpty();

    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(start);
    for (ChildJvm child : List.of(robin, alex)) {
      assertThat(lines(child, RelayProcess.PUBLISH))
          .as("windows of a relay process")
          .isNotEmpty()
          .allSatisfy(l -> assertThat(l).as("published alone").endsWith("overlap=false"));
    }
  }

  /**
   * Waits until the relay processes printed {@code takes} lease takes in all; returns the one that
   * printed the last.
   */
  private static ChildJvm awaitHolder(List<ChildJvm> relays, int takes) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      int total = 0;
      for (ChildJvm relay : relays) {
        total += lines(relay, RelayProcess.LEASE_TAKEN).size();
      }
      // A process holds the lease when it took it more often than it found it lost; right after
      // a takeover the former holder may not have noticed yet, so wait until only one does.
      List<ChildJvm> holding =
          relays.stream()
              .filter(
                  r ->
                      lines(r, RelayProcess.LEASE_TAKEN).size()
                          > lines(r, RelayProcess.LEASE_LOST).size())
              .toList();
      if (total >= takes && holding.size() == 1) {
        return holding.get(0);
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the relay processes took the lease fewer than " + takes + " times");
  }
}
