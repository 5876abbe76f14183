package dev.bothy.platform.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LifecycleTest {
  private final List<Integer> exits = Collections.synchronizedList(new ArrayList<>());
  private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

  private Lifecycle lifecycle(Duration total) {
    return new Lifecycle(total, exits::add, System::nanoTime);
  }

  @Test
  void start_steps_run_in_registration_order_and_a_failure_stops_the_start() {
    Lifecycle lifecycle = lifecycle(Duration.ofSeconds(5));
    lifecycle.onStart("first", () -> ran.add("first"));
    lifecycle.onStart(
        "second",
        () -> {
          throw new IllegalStateException("second fails");
        });
    lifecycle.onStart("third", () -> ran.add("third"));

    assertThatThrownBy(lifecycle::start).hasMessage("second fails");
    assertThat(ran).containsExactly("first");
  }

  @Test
  void stop_phases_run_in_order_whatever_the_registration_order() {
    // Budgets far above what the steps take: a step cut on a paused machine would leave the
    // order untested.
    Lifecycle lifecycle = lifecycle(Duration.ofSeconds(60));
    Duration budget = Duration.ofSeconds(30);
    lifecycle.onStop(StopPhase.POOL, "pool", budget, () -> ran.add("pool"));
    lifecycle.onStop(StopPhase.JOBS, "jobs", budget, () -> ran.add("jobs"));
    lifecycle.onStop(StopPhase.CONSUMERS, "consumers", budget, () -> ran.add("consumers"));
    lifecycle.onStop(StopPhase.HTTP, "http", budget, () -> ran.add("http"));
    lifecycle.onStop(StopPhase.JOBS, "jobs-2", budget, () -> ran.add("jobs-2"));

    lifecycle.stop();
    lifecycle.stop();

    assertThat(ran).containsExactly("http", "consumers", "jobs", "jobs-2", "pool");
  }

  @Test
  void a_step_that_overruns_its_budget_is_cut_and_the_next_still_runs() {
    Lifecycle lifecycle = lifecycle(Duration.ofSeconds(10));
    CountDownLatch interrupted = new CountDownLatch(1);
    lifecycle.onStop(
        StopPhase.CONSUMERS,
        "stuck",
        Duration.ofMillis(100),
        () -> {
          try {
            new CountDownLatch(1).await();
          } catch (InterruptedException e) {
            interrupted.countDown();
          }
        });
    lifecycle.onStop(StopPhase.POOL, "pool", Duration.ofSeconds(9), () -> ran.add("pool"));

    long began = System.nanoTime();
    lifecycle.stop();

    assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(5));
    assertThat(ran).containsExactly("pool");
    assertThat(awaitQuietly(interrupted)).as("the cut step was interrupted").isTrue();
  }

  @Test
  void a_step_gets_no_more_than_what_remains_of_the_total_timeout() {
    Lifecycle lifecycle = lifecycle(Duration.ofMillis(300));
    lifecycle.onStop(
        StopPhase.JOBS, "slow", Duration.ofSeconds(30), () -> new CountDownLatch(1).await());
    lifecycle.onStop(StopPhase.POOL, "pool", Duration.ofSeconds(30), () -> ran.add("pool"));

    long began = System.nanoTime();
    lifecycle.stop();

    assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(5));
    assertThat(ran).as("no time remained for the pool step").isEmpty();
  }

  @Test
  void a_step_without_a_budget_of_its_own_is_given_what_remains_of_the_total_timeout() {
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    Lifecycle lifecycle = new Lifecycle(Duration.ofSeconds(30), exits::add, nanos::get);
    List<Duration> given = Collections.synchronizedList(new ArrayList<>());
    // The http step takes 12 s of the fake clock, so 18 s remain for the consumers.
    lifecycle.onStop(
        StopPhase.HTTP, "http", Duration.ofSeconds(30), () -> nanos.addAndGet(12_000_000_000L));
    lifecycle.onStopWithRest(StopPhase.CONSUMERS, "consumers", given::add);
    lifecycle.onStop(StopPhase.POOL, "pool", Duration.ofSeconds(30), () -> ran.add("pool"));

    lifecycle.stop();

    assertThat(given).containsExactly(Duration.ofSeconds(18));
    assertThat(ran).containsExactly("pool");
  }

  @Test
  void a_step_that_throws_is_logged_and_the_next_still_runs() {
    Lifecycle lifecycle = lifecycle(Duration.ofSeconds(60));
    lifecycle.onStop(
        StopPhase.HTTP,
        "failing",
        Duration.ofSeconds(30),
        () -> {
          throw new IllegalStateException("broken");
        });
    lifecycle.onStop(StopPhase.POOL, "pool", Duration.ofSeconds(30), () -> ran.add("pool"));

    lifecycle.stop();

    assertThat(ran).containsExactly("pool");
  }

  @Test
  void fail_exits_with_status_1_once() {
    Lifecycle lifecycle = lifecycle(Duration.ofSeconds(5));

    lifecycle.fail(new IllegalStateException("runner died"));
    lifecycle.fail(new IllegalStateException("tail died too"));

    assertThat(exits).containsExactly(1);
  }

  @Test
  void roles_say_what_they_run() {
    assertThat(Role.API.servesApi()).isTrue();
    assertThat(Role.API.runsWorkers()).isFalse();
    assertThat(Role.WORKER.servesApi()).isFalse();
    assertThat(Role.WORKER.runsWorkers()).isTrue();
    assertThat(Role.ALL.servesApi()).isTrue();
    assertThat(Role.ALL.runsWorkers()).isTrue();
    assertThat(Role.WORKER.code()).isEqualTo("worker");
    assertThat(StopPhase.CONSUMERS.code()).isEqualTo("consumers");
  }

  private static boolean awaitQuietly(CountDownLatch latch) {
    try {
      return latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
