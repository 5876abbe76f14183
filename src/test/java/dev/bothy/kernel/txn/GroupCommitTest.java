package dev.bothy.kernel.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group commit primitive on a unit of work that only runs the work: each item gets its own
 * result, items queued during a unit share the next, a failed batch is written again one item per
 * unit, an error reaches every item of its batch, and a submit returns before its unit runs.
 */
class GroupCommitTest {
  private static final String NAME = "bothy-test-group";
  private final ExecutorService threads = Executors.newCachedThreadPool();
  // Every unit the batch work ran in, by its items, in run order (failed units included).
  private final List<List<Integer>> units = new CopyOnWriteArrayList<>();
  // Runs first in every unit of gated(): a test holds a unit there.
  private volatile Consumer<List<Integer>> gate = batch -> {};

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
  }

  /** A unit of work that runs the work once on the calling thread; nothing else is used. */
  private static final class RunOnly implements UnitOfWork {
    final AtomicInteger committed = new AtomicInteger();

    @Override
    public <T> T run(Work<T> work) {
      try {
        T out = work.run();
        committed.incrementAndGet();
        return out;
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public <T> T runStatement(Work<T> work) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> T join(Work<T> work) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void cancelStatement(Thread thread) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Phase currentPhase() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean inUnit() {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> Optional<T> get(TxKey<T> key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> T computeIfAbsent(TxKey<T> key, Supplier<T> create) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> void put(TxKey<T> key, T value) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void afterCommit(Runnable callback) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void onCompletion(Runnable callback) {
      throw new UnsupportedOperationException();
    }
  }

  private final RunOnly uow = new RunOnly();

  /** Ten times each item; refuses a batch that holds a negative item. */
  private List<String> tenTimes(List<Integer> batch) {
    units.add(List.copyOf(batch));
    if (batch.stream().anyMatch(i -> i < 0)) {
      throw new IllegalArgumentException("refused by the test");
    }
    return batch.stream().map(i -> Integer.toString(i * 10)).toList();
  }

  /** Waits until {@code count} items are queued behind a running unit, at most 20 s. */
  private static void awaitQueued(GroupCommit<?, ?> commit, int count) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (commit.queued() < count) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not queued within 20 s: " + commit.queued() + " of " + count);
      }
      Thread.onSpinWait();
    }
  }

  /**
   * Submits each item from its own thread: the first alone, holding its unit until all the others
   * are queued, so they share the next unit.
   */
  private List<Future<String>> submitBehindFirst(GroupCommit<Integer, String> commit, int... items)
      throws InterruptedException {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch othersQueued = new CountDownLatch(1);
    List<Future<String>> out = new ArrayList<>();
    gate =
        batch -> {
          if (batch.contains(items[0])) {
            firstRunning.countDown();
            await(othersQueued);
          }
        };
    out.add(threads.submit(() -> commit.await(items[0])));
    assertThat(firstRunning.await(20, TimeUnit.SECONDS)).isTrue();
    for (int k = 1; k < items.length; k++) {
      int item = items[k];
      out.add(threads.submit(() -> commit.await(item)));
    }
    awaitQueued(commit, items.length - 1);
    othersQueued.countDown();
    return out;
  }

  private GroupCommit<Integer, String> gated() {
    return new GroupCommit<>(
        NAME,
        uow,
        batch -> {
          gate.accept(batch);
          return tenTimes(batch);
        });
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(20, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released within 20 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void one_caller_gets_its_own_result_in_a_unit_of_its_own() {
    GroupCommit<Integer, String> commit = new GroupCommit<>(NAME, uow, this::tenTimes);

    assertThat(commit.await(7)).isEqualTo("70");
    assertThat(commit.await(8)).isEqualTo("80");

    assertThat(units).containsExactly(List.of(7), List.of(8));
    assertThat(uow.committed).hasValue(2);
    assertThat(commit.queued()).isZero();
  }

  @Test
  void items_queued_during_a_unit_share_the_next_one_and_each_caller_gets_its_own_result()
      throws Exception {
    GroupCommit<Integer, String> commit = gated();
    int[] items = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

    List<Future<String>> results = submitBehindFirst(commit, items);

    for (int k = 0; k < items.length; k++) {
      assertThat(results.get(k).get(20, TimeUnit.SECONDS)).isEqualTo(items[k] * 10 + "");
    }
    assertThat(units).hasSize(2);
    assertThat(units.get(0)).containsExactly(1);
    assertThat(units.get(1)).containsExactlyInAnyOrder(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    assertThat(uow.committed).hasValue(2);
  }

  @Test
  void a_failed_batch_is_written_again_one_item_per_unit_so_the_bad_item_fails_alone()
      throws Exception {
    GroupCommit<Integer, String> commit = gated();

    List<Future<String>> results = submitBehindFirst(commit, 1, 2, -3, 4);

    assertThat(results.get(0).get(20, TimeUnit.SECONDS)).isEqualTo("10");
    assertThat(results.get(1).get(20, TimeUnit.SECONDS)).isEqualTo("20");
    assertThat(results.get(3).get(20, TimeUnit.SECONDS)).isEqualTo("40");
    assertThatThrownBy(() -> results.get(2).get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("refused by the test");
    // The shared unit failed, then each of its items ran alone: 2 and 4 committed once each.
    assertThat(units.get(1)).containsExactlyInAnyOrder(2, -3, 4);
    assertThat(units.subList(2, units.size()))
        .containsExactlyInAnyOrder(List.of(2), List.of(-3), List.of(4));
    assertThat(uow.committed).hasValue(3);
  }

  @Test
  void an_error_in_a_unit_reaches_every_caller_of_its_batch_and_the_next_batch_still_runs()
      throws Exception {
    GroupCommit<Integer, String> commit =
        new GroupCommit<>(
            NAME,
            uow,
            batch -> {
              gate.accept(batch);
              if (batch.contains(99)) {
                throw new AssertionError("an error, not an exception");
              }
              return tenTimes(batch);
            });

    List<Future<String>> results = submitBehindFirst(commit, 1, 99, 2);

    assertThat(results.get(0).get(20, TimeUnit.SECONDS)).isEqualTo("10");
    for (int k : new int[] {1, 2}) {
      assertThatThrownBy(() -> results.get(k).get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(AssertionError.class)
          .hasMessage("an error, not an exception");
    }
    assertThat(commit.await(5)).isEqualTo("50");
  }

  @Test
  void a_result_list_of_the_wrong_size_fails_inside_the_unit() {
    GroupCommit<Integer, String> commit = new GroupCommit<>(NAME, uow, batch -> List.of());

    assertThatThrownBy(() -> commit.await(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("0 results for 1 items");
    assertThat(uow.committed).hasValue(0);
  }

  @Test
  void a_submit_returns_at_once_and_its_future_completes_on_the_groups_thread_after_the_unit()
      throws Exception {
    GroupCommit<Integer, String> commit = gated();
    CountDownLatch release = new CountDownLatch(1);
    gate = batch -> await(release);

    CompletableFuture<String> outcome = commit.submit(1);
    assertThat(outcome).as("the caller does not wait for the unit").isNotDone();
    CompletableFuture<String> where = outcome.thenApply(r -> Thread.currentThread().getName());
    release.countDown();

    assertThat(outcome.get(20, TimeUnit.SECONDS)).isEqualTo("10");
    assertThat(where.get(20, TimeUnit.SECONDS)).isEqualTo(NAME);
    assertThat(uow.committed).hasValue(1);
  }

  @Test
  void a_caller_whose_item_another_thread_wrote_returns_while_the_next_unit_runs()
      throws Exception {
    GroupCommit<Integer, String> commit = gated();
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CountDownLatch sharedRunning = new CountDownLatch(1);
    CountDownLatch releaseShared = new CountDownLatch(1);
    CountDownLatch lastRunning = new CountDownLatch(1);
    CountDownLatch releaseLast = new CountDownLatch(1);
    gate =
        batch -> {
          if (batch.contains(10)) {
            firstRunning.countDown();
            await(releaseFirst);
          } else if (batch.contains(20)) {
            sharedRunning.countDown();
            await(releaseShared);
          } else if (batch.contains(40)) {
            lastRunning.countDown();
            await(releaseLast);
          }
        };
    // 20 and 30 queue behind 10's unit and share the next; 40 queues behind theirs.
    Future<String> ten = threads.submit(() -> commit.await(10));
    assertThat(firstRunning.await(20, TimeUnit.SECONDS)).isTrue();
    Future<String> twenty = threads.submit(() -> commit.await(20));
    Future<String> thirty = threads.submit(() -> commit.await(30));
    awaitQueued(commit, 2);
    releaseFirst.countDown();
    assertThat(sharedRunning.await(20, TimeUnit.SECONDS)).isTrue();
    Future<String> forty = threads.submit(() -> commit.await(40));
    awaitQueued(commit, 1);
    releaseShared.countDown();

    // 40's unit is held now, and neither 20 nor 30 may be the thread that runs it.
    assertThat(lastRunning.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(ten.get(20, TimeUnit.SECONDS)).isEqualTo("100");
    assertThat(twenty.get(20, TimeUnit.SECONDS)).isEqualTo("200");
    assertThat(thirty.get(20, TimeUnit.SECONDS)).isEqualTo("300");
    assertThat(forty).isNotDone();
    releaseLast.countDown();
    assertThat(forty.get(20, TimeUnit.SECONDS)).isEqualTo("400");
    assertThat(units).hasSize(3);
    assertThat(units.get(1)).containsExactlyInAnyOrder(20, 30);
  }

  @Test
  void many_threads_each_get_their_own_result_once() throws Exception {
    GroupCommit<Integer, String> commit = new GroupCommit<>(NAME, uow, this::tenTimes);
    List<Future<List<String>>> results = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      int base = t * 1_000;
      results.add(
          threads.submit(
              () -> {
                List<String> mine = new ArrayList<>();
                for (int i = 1; i <= 200; i++) {
                  mine.add(commit.await(base + i));
                }
                return mine;
              }));
    }

    List<Integer> written = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      List<String> mine = results.get(t).get(60, TimeUnit.SECONDS);
      for (int i = 1; i <= 200; i++) {
        assertThat(mine.get(i - 1)).isEqualTo((t * 1_000 + i) * 10 + "");
      }
    }
    units.forEach(written::addAll);
    assertThat(written).hasSize(16 * 200).doesNotHaveDuplicates();
    assertThat(commit.queued()).isZero();
  }
}
