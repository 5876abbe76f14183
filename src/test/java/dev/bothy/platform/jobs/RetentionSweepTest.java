package dev.bothy.platform.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.kernel.txn.Work;
import dev.bothy.testing.CapturedLog;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The shared body of the retention kinds, with counting stores and units. */
class RetentionSweepTest {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionSweepTest.class);

  record Args() {}

  /** Counts the units it runs; every work runs once; the sweep needs nothing but {@code run}. */
  private static final class CountingUnits {
    final AtomicInteger units = new AtomicInteger();
    final UnitOfWork unit =
        (UnitOfWork)
            Proxy.newProxyInstance(
                UnitOfWork.class.getClassLoader(),
                new Class<?>[] {UnitOfWork.class},
                (proxy, method, args) -> {
                  if (!method.getName().equals("run")) {
                    throw new UnsupportedOperationException(method.getName());
                  }
                  units.incrementAndGet();
                  return ((Work<?>) args[0]).run();
                });
  }

  /**
   * A table of {@code rows} rows older than any retention, deleted at most {@code limit} a call.
   */
  private static RetentionSweep.BatchDelete table(int rows, List<Instant> befores) {
    AtomicInteger left = new AtomicInteger(rows);
    return (before, limit) -> {
      befores.add(before);
      int deleted = Math.min(limit, left.get());
      left.addAndGet(-deleted);
      return deleted;
    };
  }

  @Test
  void each_table_is_swept_in_batches_one_unit_each_until_a_short_batch_and_one_line_counts_all()
      throws Exception {
    Instant now = Instant.parse("2026-12-02T12:00:00Z");
    Clock clock = () -> now;
    CountingUnits units = new CountingUnits();
    List<Instant> befores = new ArrayList<>();
    JobKind<Args> kind =
        RetentionSweep.kind(
            "test.retention",
            Args.class,
            LOG,
            "test rows deleted",
            units.unit,
            clock,
            Duration.ofDays(7),
            2,
            List.of(table(5, befores), table(4, befores)));

    assertThat(kind.queue()).isEqualTo(RetentionSweep.QUEUE);
    try (CapturedLog log = CapturedLog.of(LOG)) {
      kind.work().work(null, new Args());
      // 5 rows: batches of 2, 2, 1; 4 rows: 2, 2 and an empty batch that ends the sweep.
      assertThat(units.units.get()).isEqualTo(6);
      assertThat(befores).hasSize(6).containsOnly(now.minus(Duration.ofDays(7)));
      assertThat(log.events())
          .extracting(ILoggingEvent::getFormattedMessage)
          .containsExactly("test rows deleted: deleted=9");
    }
  }

  @Test
  void a_sweep_that_deletes_nothing_logs_nothing() throws Exception {
    CountingUnits units = new CountingUnits();
    JobKind<Args> kind =
        RetentionSweep.kind(
            "test.retention",
            Args.class,
            LOG,
            "test rows deleted",
            units.unit,
            Instant::now,
            Duration.ofDays(1),
            100,
            List.of(table(0, new ArrayList<>())));
    try (CapturedLog log = CapturedLog.of(LOG)) {
      kind.work().work(null, new Args());
      assertThat(units.units.get()).isEqualTo(1);
      assertThat(log.events()).isEmpty();
    }
  }

  @Test
  void a_batch_size_below_one_is_refused() {
    assertThatThrownBy(
            () ->
                RetentionSweep.kind(
                    "test.retention",
                    Args.class,
                    LOG,
                    "test rows deleted",
                    new CountingUnits().unit,
                    Instant::now,
                    Duration.ofDays(1),
                    0,
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jobs.cleanerBatchSize");
  }
}
