package dev.bothy.bus.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import dev.bothy.sync.ResourceRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The read-ahead of the log transport's dispatch jobs (D-BD-12), over an in-memory log. */
class EventReadAheadTest {
  private final ExecutorService threads = Executors.newFixedThreadPool(8);
  private final AtomicLong now = new AtomicLong();

  private EventReadAhead ahead(EventLog log, int window) {
    return new EventReadAhead(log, window, Duration.ofSeconds(1), now::get);
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  /** An in-memory log of events 1 to head, from minRetained, noting each readAfter. */
  private static final class MemoryLog implements EventLog {
    final List<long[]> reads = new CopyOnWriteArrayList<>();
    final List<Event> events = new ArrayList<>();
    volatile long minRetained = 1;
    volatile CountDownLatch holdReads;
    volatile CountDownLatch readStarted = new CountDownLatch(1);
    volatile RuntimeException failFirst;

    MemoryLog(int head) {
      for (int seq = 1; seq <= head; seq++) {
        append();
      }
    }

    synchronized void append() {
      events.add(
          new Event(
              events.size() + 1,
              UUID.randomUUID(),
              "settings.updated",
              Instant.EPOCH,
              new ResourceRef("setting", UUID.randomUUID()),
              Optional.empty(),
              "{}",
              Optional.empty()));
    }

    Event event(long seq) {
      return events.get((int) seq - 1);
    }

    @Override
    public long head() {
      return events.size();
    }

    @Override
    public long minRetained() {
      return minRetained;
    }

    @Override
    public ReadResult readAfter(long afterSeq, int limit) {
      reads.add(new long[] {afterSeq, limit});
      readStarted.countDown();
      CountDownLatch hold = holdReads;
      if (hold != null) {
        try {
          hold.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (failFirst != null && reads.size() == 1) {
        throw failFirst;
      }
      if (afterSeq + 1 < minRetained) {
        return new ReadResult.ResyncRequired(minRetained);
      }
      List<Event> page = new ArrayList<>();
      for (long seq = afterSeq + 1; seq <= head() && page.size() < limit; seq++) {
        page.add(event(seq));
      }
      return new ReadResult.Page(page, page.isEmpty() ? afterSeq : afterSeq + page.size());
    }

    @Override
    public List<Event> readNumbers(Collection<Long> seqs) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<List<Long>> numbersOf(List<UUID> ids, long afterSeq) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void consecutive_events_cost_one_read_per_window() {
    MemoryLog log = new MemoryLog(100);
    EventReadAhead ahead = ahead(log, 32);

    for (long seq = 1; seq <= 64; seq++) {
      assertThat(ahead.read(seq, log.event(seq).id())).contains(log.event(seq));
    }

    assertThat(log.reads).hasSize(2);
    assertThat(log.reads.get(0)).containsExactly(0, 32);
    assertThat(log.reads.get(1)).containsExactly(32, 32);
  }

  @Test
  void an_event_read_before_is_served_again_for_another_handler() {
    MemoryLog log = new MemoryLog(10);
    EventReadAhead ahead = ahead(log, 4);

    assertThat(ahead.read(3, log.event(3).id())).contains(log.event(3));
    assertThat(ahead.read(3, log.event(3).id())).contains(log.event(3));
    assertThat(ahead.read(4, log.event(4).id())).contains(log.event(4));

    assertThat(log.reads).hasSize(1);
  }

  @Test
  void a_window_of_one_reads_each_event_alone() {
    MemoryLog log = new MemoryLog(5);
    EventReadAhead ahead = ahead(log, 1);

    for (long seq = 1; seq <= 5; seq++) {
      assertThat(ahead.read(seq, log.event(seq).id())).contains(log.event(seq));
    }

    assertThat(log.reads).hasSize(5).allSatisfy(read -> assertThat(read[1]).isEqualTo(1));
  }

  @Test
  void an_event_past_the_head_or_removed_by_retention_is_empty() {
    MemoryLog log = new MemoryLog(10);
    EventReadAhead ahead = ahead(log, 4);

    assertThat(ahead.read(11, UUID.randomUUID())).isEmpty();
    log.minRetained = 6;
    assertThat(ahead.read(2, log.event(2).id())).isEmpty();
  }

  @Test
  void an_id_that_does_not_match_the_number_is_empty() {
    MemoryLog log = new MemoryLog(10);
    EventReadAhead ahead = ahead(log, 4);

    assertThat(ahead.read(2, UUID.randomUUID())).isEmpty();
    assertThat(ahead.read(2, log.event(2).id())).contains(log.event(2));
  }

  @Test
  void an_event_appended_after_its_window_was_read_is_read_again() {
    MemoryLog log = new MemoryLog(2);
    EventReadAhead ahead = ahead(log, 8);
    assertThat(ahead.read(1, log.event(1).id())).contains(log.event(1));

    log.append();

    assertThat(ahead.read(3, log.event(3).id())).contains(log.event(3));
    assertThat(log.reads).hasSize(2);
    assertThat(log.reads.get(1)).containsExactly(2, 8);
  }

  @Test
  void concurrent_misses_in_one_window_share_one_read() throws Exception {
    MemoryLog log = new MemoryLog(50);
    log.holdReads = new CountDownLatch(1);
    EventReadAhead ahead = ahead(log, 16);

    List<Future<Optional<Event>>> answers = new ArrayList<>();
    answers.add(threads.submit(() -> ahead.read(1, log.event(1).id())));
    assertThat(log.readStarted.await(10, TimeUnit.SECONDS)).isTrue();
    for (long seq = 2; seq <= 8; seq++) {
      long s = seq;
      answers.add(threads.submit(() -> ahead.read(s, log.event(s).id())));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ahead.waiting() < 7 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(ahead.waiting()).isEqualTo(7);
    log.holdReads.countDown();

    for (int i = 0; i < answers.size(); i++) {
      assertThat(answers.get(i).get(10, TimeUnit.SECONDS)).contains(log.event(i + 1));
    }
    assertThat(log.reads).hasSize(1);
  }

  @Test
  void a_failed_read_fails_its_reader_and_each_waiter_reads_alone() throws Exception {
    MemoryLog log = new MemoryLog(50);
    log.holdReads = new CountDownLatch(1);
    log.failFirst = new IllegalStateException("database away");
    EventReadAhead ahead = ahead(log, 16);

    Future<Optional<Event>> first = threads.submit(() -> ahead.read(1, log.event(1).id()));
    assertThat(log.readStarted.await(10, TimeUnit.SECONDS)).isTrue();
    Future<Optional<Event>> second = threads.submit(() -> ahead.read(2, log.event(2).id()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ahead.waiting() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(ahead.waiting()).isEqualTo(1);
    log.holdReads.countDown();

    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
        .hasRootCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage("database away");
    assertThat(second.get(10, TimeUnit.SECONDS)).contains(log.event(2));
    assertThat(log.reads)
        .as("the waiter read its own event after the shared read failed")
        .hasSize(2);
    assertThat(log.reads.get(1)).containsExactly(1, 1);
  }

  @Test
  void the_cache_holds_at_most_four_windows() {
    MemoryLog log = new MemoryLog(200);
    EventReadAhead ahead = ahead(log, 8);

    for (long seq = 1; seq <= 200; seq++) {
      ahead.read(seq, log.event(seq).id());
      assertThat(ahead.cached()).isLessThanOrEqualTo(32);
    }
    assertThat(ahead.read(1, log.event(1).id())).contains(log.event(1));
    assertThat(log.reads).as("event 1 was evicted and read again").hasSize(26);
  }

  @Test
  void a_first_miss_inside_a_window_reads_from_its_own_number() {
    MemoryLog log = new MemoryLog(100);
    EventReadAhead ahead = ahead(log, 8);

    for (long seq = 5; seq <= 12; seq++) {
      assertThat(ahead.read(seq, log.event(seq).id())).contains(log.event(seq));
    }
    assertThat(ahead.read(3, log.event(3).id())).contains(log.event(3));

    assertThat(log.reads).hasSize(2);
    assertThat(log.reads.get(0)).containsExactly(4, 8);
    assertThat(log.reads.get(1)).containsExactly(2, 8);
  }

  @Test
  void an_old_window_read_when_full_stays_for_the_next_jobs() {
    MemoryLog log = new MemoryLog(100);
    EventReadAhead ahead = ahead(log, 4);
    for (long seq = 50; seq <= 65; seq++) {
      ahead.read(seq, log.event(seq).id());
    }
    assertThat(ahead.cached()).isEqualTo(16);
    int before = log.reads.size();

    for (long seq = 1; seq <= 4; seq++) {
      assertThat(ahead.read(seq, log.event(seq).id())).contains(log.event(seq));
    }

    assertThat(log.reads).as("one read for the old window").hasSize(before + 1);
    assertThat(ahead.cached()).isEqualTo(16);
  }

  @Test
  void an_event_is_served_from_memory_only_within_the_keep() {
    MemoryLog log = new MemoryLog(10);
    EventReadAhead ahead = ahead(log, 4);
    assertThat(ahead.read(1, log.event(1).id())).contains(log.event(1));
    log.minRetained = 5;

    now.addAndGet(Duration.ofMillis(1000).toNanos());
    assertThat(ahead.read(2, log.event(2).id()))
        .as("within the keep: served as read, although retention removed it since")
        .contains(log.event(2));
    assertThat(log.reads).hasSize(1);

    now.addAndGet(1);
    assertThat(ahead.read(3, log.event(3).id())).as("past the keep: read again, gone").isEmpty();
    assertThat(log.reads).hasSize(2);
  }

  @Test
  void a_window_read_again_after_the_keep_takes_the_newest_place() {
    MemoryLog log = new MemoryLog(100);
    EventReadAhead ahead = ahead(log, 4);
    for (long seq = 1; seq <= 16; seq++) {
      ahead.read(seq, log.event(seq).id());
    }
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertThat(ahead.read(1, log.event(1).id())).contains(log.event(1));
    for (long seq = 50; seq <= 61; seq++) {
      ahead.read(seq, log.event(seq).id());
    }
    int before = log.reads.size();

    for (long seq = 2; seq <= 4; seq++) {
      assertThat(ahead.read(seq, log.event(seq).id())).contains(log.event(seq));
    }

    assertThat(log.reads).as("the window read again was kept, the stale ones left").hasSize(before);
  }

  @Test
  void a_miss_inside_a_running_range_waits_and_one_below_reads_up_to_it() throws Exception {
    MemoryLog log = new MemoryLog(50);
    CountDownLatch hold = new CountDownLatch(1);
    log.holdReads = hold;
    EventReadAhead ahead = ahead(log, 8);

    Future<Optional<Event>> five = threads.submit(() -> ahead.read(5, log.event(5).id()));
    assertThat(log.readStarted.await(10, TimeUnit.SECONDS)).isTrue();
    Future<Optional<Event>> twelve = threads.submit(() -> ahead.read(12, log.event(12).id()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ahead.waiting() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(ahead.waiting()).as("12 waits for the read of 5 to 12").isEqualTo(1);
    log.holdReads = null;
    assertThat(ahead.read(3, log.event(3).id())).contains(log.event(3));
    assertThat(log.reads).hasSize(2);
    assertThat(log.reads.get(0)).containsExactly(4, 8);
    assertThat(log.reads.get(1)).as("from 3 up to the running range at 5").containsExactly(2, 2);

    hold.countDown();
    assertThat(five.get(10, TimeUnit.SECONDS)).contains(log.event(5));
    assertThat(twelve.get(10, TimeUnit.SECONDS)).contains(log.event(12));
    assertThat(log.reads).as("12 was served by the read of 5").hasSize(2);
  }
}
