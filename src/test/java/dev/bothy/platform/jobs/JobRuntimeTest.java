package dev.bothy.platform.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.SettableClock;
import dev.bothy.platform.jobs.runtime.JobCompletionService;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.testing.JobsFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class JobRuntimeTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  record ProbeArgs(UUID id, int failFirst) {}

  record SlowArgs(UUID id, long millis) {}

  record PairArgs(UUID id) {}

  record EndArgs(UUID id, boolean snooze) {}

  record BriefSnoozeArgs(UUID id) {}

  record HandBackArgs(UUID id) {}

  enum Colour {
    RED
  }

  record SafeArgs(UUID id, long n, int i, boolean b, Colour colour, Double d) {}

  record UnsafeArgs(UUID id, String payload) {}

  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-01T12:00:00Z"));
  private final Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final AtomicInteger pairRunning = new AtomicInteger();
  private final AtomicInteger pairPeak = new AtomicInteger();
  private JobsFixture jobs;

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM jobs");
    }
    jobs = new JobsFixture(PG, clock);
    jobs.registry.register(
        JobKind.builder(
                "test.probe",
                ProbeArgs.class,
                (ctx, args) -> {
                  int n =
                      runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  if (n <= args.failFirst()) {
                    throw new IllegalStateException("failure " + n + " of " + args.id());
                  }
                })
            .build());
    jobs.registry.register(
        JobKind.builder(
                "test.slow",
                SlowArgs.class,
                (ctx, args) -> {
                  runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  Thread.sleep(args.millis());
                })
            .timeout(Duration.ofSeconds(2))
            .maxAttempts(2)
            .build());
    jobs.registry.register(
        JobKind.builder(
                "test.pair",
                PairArgs.class,
                (ctx, args) -> {
                  int now = pairRunning.incrementAndGet();
                  pairPeak.accumulateAndGet(now, Math::max);
                  Thread.sleep(20);
                  pairRunning.decrementAndGet();
                  runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                })
            .queue("pairs")
            .build());
    jobs.registry.register(
        JobKind.builder(
                "test.hand_back",
                HandBackArgs.class,
                (ctx, args) -> {
                  int n =
                      runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  if (n == 1) {
                    // Runs until a stop interrupts it, however slow the machine: never ends
                    // before the stop, never meets its timeout first.
                    new CountDownLatch(1).await();
                  }
                })
            .timeout(Duration.ofMinutes(5))
            .build());
    jobs.registry.register(
        JobKind.builder(
                "test.end",
                EndArgs.class,
                (ctx, args) -> {
                  int n =
                      runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  if (args.snooze() && n == 1) {
                    throw ctx.snooze(Duration.ofMinutes(5));
                  }
                  if (!args.snooze()) {
                    throw ctx.cancel("no longer needed");
                  }
                })
            .build());
    jobs.registry.register(
        JobKind.builder(
                "test.brief_snooze",
                BriefSnoozeArgs.class,
                (ctx, args) -> {
                  int n =
                      runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  if (n == 1) {
                    throw ctx.snooze(BRIEF_SNOOZE);
                  }
                })
            .build());
  }

  private static final Duration BRIEF_SNOOZE = Duration.ofSeconds(1);

  @AfterEach
  void tearDown() {
    jobs.stopAll();
    assertThat(jobs.fatal).as("no runtime thread ended unexpectedly").isEmpty();
  }

  private JobSettings settings() {
    return JobsFixture.settings(Map.of("default", 4, "pairs", 2));
  }

  private PgJobRuntime started() {
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), settings());
    runtime.start();
    return runtime;
  }

  private UUID insert(Record args) {
    return jobs.uow.run(() -> jobs.inserter.insertTx(args)).ids().get(0).orElseThrow();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }

  /**
   * Waits until {@code count} reaches {@code target}, failing when it stands still for 30 seconds
   * or after 5 minutes in all: for bulk work whose total time depends on the machine.
   */
  private static void awaitProgress(String what, LongSupplier count, long target)
      throws InterruptedException {
    long start = System.nanoTime();
    long last = count.getAsLong();
    long movedAt = start;
    while (last != target) {
      long now = System.nanoTime();
      if (now - movedAt > TimeUnit.SECONDS.toNanos(30)
          || now - start > TimeUnit.MINUTES.toNanos(5)) {
        throw new AssertionError("timed out waiting until " + what + ": " + last + " of " + target);
      }
      Thread.sleep(20);
      long seen = count.getAsLong();
      if (seen != last) {
        last = seen;
        movedAt = System.nanoTime();
      }
    }
  }

  private JobState state(UUID id) {
    return jobs.admin.show(id).state();
  }

  @Test
  void a_job_that_commits_due_long_before_the_fetch_horizon_is_worked_after_the_next_read()
      throws Exception {
    // The fetch reads from its queue's horizon (ADR 0030). A job whose transaction stamped its due
    // time an hour before it committed lies before that horizon; the next read of the horizon,
    // within jobs.pollInterval, moves the horizon back to it.
    started();
    UUID first = Ids.newId();
    insert(new ProbeArgs(first, 0));
    await("the first job ran, so the horizon was read", () -> runs.containsKey(first));
    UUID late = Ids.newId();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
              + " created_at) VALUES (gen_random_uuid(), 'test.probe', 'default',"
              + " jsonb_build_object('id', '"
              + late
              + "', 'failFirst', 0), 'available', 3, 1, timestamptz '2026-03-01T11:00:00Z',"
              + " timestamptz '2026-03-01T11:00:00Z')");
      st.execute("NOTIFY jobs_insert, 'default'");
    }
    await("the late job ran", () -> runs.containsKey(late));
  }

  @Test
  void a_committed_insert_is_worked_and_a_rolled_back_one_is_never_seen() throws Exception {
    UUID kept = Ids.newId();
    UUID dropped = Ids.newId();
    started();
    insert(new ProbeArgs(kept, 0));
    assertThatThrownBy(
            () ->
                jobs.uow.run(
                    () -> {
                      jobs.inserter.insertTx(new ProbeArgs(dropped, 0));
                      throw new IllegalStateException("roll back");
                    }))
        .hasMessage("roll back");
    await("the committed job completed", () -> runs.containsKey(kept));
    JobView job = jobs.admin.list(Optional.empty(), Optional.of("test.probe"), 10).get(0);
    await("it is completed", () -> state(job.id()) == JobState.COMPLETED);
    assertThat(jobs.admin.show(job.id()).attempt()).isEqualTo(1);
    Thread.sleep(300);
    assertThat(runs).doesNotContainKey(dropped);
    assertThat(jobs.admin.list(Optional.empty(), Optional.empty(), 10)).hasSize(1);
  }

  @Test
  void inserting_outside_a_unit_or_with_an_unregistered_args_type_is_invalid() {
    assertThatThrownBy(() -> jobs.inserter.insertTx(new ProbeArgs(Ids.newId(), 0)))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("inside a unit of work");
    assertThatThrownBy(() -> jobs.uow.run(() -> jobs.inserter.insertTx(new UnsafeArgs(null, "x"))))
        .isInstanceOf(BothyException.class)
        .satisfies(e -> assertThat(((BothyException) e).kind()).isEqualTo(ErrorKind.INVALID))
        .hasMessageContaining("no job kind takes");
  }

  @Test
  void three_runtimes_on_separate_pools_work_ten_thousand_jobs_exactly_once() throws Exception {
    List<UUID> ids = new ArrayList<>();
    for (int batch = 0; batch < 10; batch++) {
      List<JobInsert> inserts = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        UUID id = Ids.newId();
        ids.add(id);
        inserts.add(JobInsert.of(new ProbeArgs(id, 0)));
      }
      assertThat(jobs.uow.run(() -> jobs.inserter.insertTx(inserts)).inserted()).isEqualTo(1000);
    }
    jobs.registry.freeze();
    for (int i = 0; i < 3; i++) {
      HikariDataSource pool = PG.pool("bothy_app", 6);
      jobs.runtime(pool, settings()).start();
    }
    // Ten thousand jobs take a while on a slow machine: wait as long as they keep moving.
    awaitProgress("every job ran", runs::size, ids.size());
    awaitProgress(
        "every job is completed",
        () ->
            jobs.admin.counts().stream()
                .filter(c -> c.state() == JobState.COMPLETED)
                .mapToLong(QueueCount::count)
                .sum(),
        ids.size());
    assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void a_kind_that_fails_twice_completes_on_attempt_three_after_the_backoff() throws Exception {
    started();
    UUID probe = Ids.newId();
    UUID id = insert(new ProbeArgs(probe, 2));
    await("the first attempt failed", () -> state(id) == JobState.RETRYABLE);
    JobView first = jobs.admin.show(id);
    Duration delay1 = Duration.between(clock.now(), first.scheduledAt());
    assertThat(delay1).isBetween(Duration.ofMillis(750), Duration.ofSeconds(1));
    Thread.sleep(400);
    assertThat(runs.get(probe).get()).as("not retried before its time").isEqualTo(1);

    clock.advance(Duration.ofSeconds(1));
    await(
        "the second attempt failed",
        () -> jobs.admin.show(id).attempt() == 2 && state(id) == JobState.RETRYABLE);
    Duration delay2 = Duration.between(clock.now(), jobs.admin.show(id).scheduledAt());
    assertThat(delay2).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(2));

    clock.advance(Duration.ofSeconds(2));
    await("completed", () -> state(id) == JobState.COMPLETED);
    JobView done = jobs.admin.show(id);
    assertThat(done.attempt()).isEqualTo(3);
    assertThat(done.errors())
        .extracting(JobError::attempt, JobError::kind, JobError::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "exception", "failure 1 of " + probe),
            org.assertj.core.groups.Tuple.tuple(2, "exception", "failure 2 of " + probe));
    assertThat(done.errors().get(0).error()).isEqualTo(IllegalStateException.class.getName());
  }

  record SelfCompletingArgs(UUID id, boolean rollBack) {}

  @Test
  void a_job_its_work_completes_in_a_unit_completes_with_that_unit_and_a_rolled_back_one_on_return()
      throws Exception {
    JobCompletionService completions = new JobCompletionService(jobs.uow, clock);
    Map<UUID, JobState> beforeReturn = new ConcurrentHashMap<>();
    jobs.registry.register(
        JobKind.builder(
                "test.self_completing",
                SelfCompletingArgs.class,
                (ctx, args) -> {
                  try {
                    jobs.uow.run(
                        () -> {
                          completions.completeTx(List.of(ctx));
                          if (args.rollBack()) {
                            throw new IllegalStateException("rolled back by the test");
                          }
                          return null;
                        });
                  } catch (IllegalStateException expected) {
                    // The unit and its completion are gone; the work returns all the same.
                  }
                  beforeReturn.put(ctx.id(), state(ctx.id()));
                })
            .build());
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), settings());
    runtime.serve(completions);
    runtime.start();
    UUID committed = insert(new SelfCompletingArgs(Ids.newId(), false));
    UUID rolledBack = insert(new SelfCompletingArgs(Ids.newId(), true));

    await("both completed", () -> beforeReturn.size() == 2);
    await(
        "both completed",
        () -> state(committed) == JobState.COMPLETED && state(rolledBack) == JobState.COMPLETED);
    assertThat(beforeReturn)
        .as("completed by the work's unit, before the work returned; the other by the runtime")
        .containsEntry(committed, JobState.COMPLETED)
        .containsEntry(rolledBack, JobState.RUNNING);
    assertThat(jobs.admin.show(committed).attempt()).isEqualTo(1);
    assertThatThrownBy(() -> completions.completeTx(List.of()))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("outside a unit of work");
  }

  record ScheduledArgs(UUID id) {}

  @Test
  void a_kind_with_its_own_retry_delays_is_retried_by_them_and_discarded_after_its_attempts()
      throws Exception {
    jobs.registry.register(
        JobKind.builder(
                "test.scheduled",
                ScheduledArgs.class,
                (ctx, args) -> {
                  runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  throw new IllegalStateException("always");
                })
            .maxAttempts(2)
            .retryDelays((failed, jitter) -> Duration.ofHours(3L * failed))
            .build());
    started();
    UUID probe = Ids.newId();
    UUID id = insert(new ScheduledArgs(probe));
    await("the first attempt failed", () -> state(id) == JobState.RETRYABLE);
    assertThat(Duration.between(clock.now(), jobs.admin.show(id).scheduledAt()))
        .as("the kind's delay after one failure, not the runtime's backoff")
        .isEqualTo(Duration.ofHours(3));
    clock.advance(Duration.ofHours(3));
    await("the last attempt discarded it", () -> state(id) == JobState.DISCARDED);
    assertThat(runs.get(probe).get()).isEqualTo(2);
  }

  record NotBeforeArgs(UUID id, long notBeforeMinutes) {}

  @Test
  void a_retry_no_sooner_than_counts_the_attempt_and_waits_the_later_of_it_and_the_kinds_delay()
      throws Exception {
    jobs.registry.register(
        JobKind.builder(
                "test.not_before",
                NotBeforeArgs.class,
                (ctx, args) -> {
                  runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  throw ctx.retryNoSoonerThan(
                      Duration.ofMinutes(args.notBeforeMinutes()), "receiver asked to wait");
                })
            .maxAttempts(2)
            .retryDelays((failed, jitter) -> Duration.ofMinutes(10))
            .build());
    started();
    UUID shortProbe = Ids.newId();
    UUID longProbe = Ids.newId();
    UUID shortWait = insert(new NotBeforeArgs(shortProbe, 0));
    UUID longWait = insert(new NotBeforeArgs(longProbe, 60));
    await(
        "both first attempts failed",
        () -> state(shortWait) == JobState.RETRYABLE && state(longWait) == JobState.RETRYABLE);
    assertThat(jobs.admin.show(shortWait).attempt()).as("the attempt counts").isEqualTo(1);
    assertThat(Duration.between(clock.now(), jobs.admin.show(shortWait).scheduledAt()))
        .as("a shorter wait than the kind's delay keeps the delay")
        .isEqualTo(Duration.ofMinutes(10));
    assertThat(Duration.between(clock.now(), jobs.admin.show(longWait).scheduledAt()))
        .as("a longer wait than the kind's delay is honoured")
        .isEqualTo(Duration.ofMinutes(60));
    assertThat(jobs.admin.show(shortWait).errors())
        .extracting(JobError::message)
        .containsExactly("receiver asked to wait");
    clock.advance(Duration.ofMinutes(60));
    await(
        "the last attempts discarded both",
        () -> state(shortWait) == JobState.DISCARDED && state(longWait) == JobState.DISCARDED);
    assertThat(runs.get(shortProbe).get()).isEqualTo(2);
    assertThat(runs.get(longProbe).get()).isEqualTo(2);
  }

  @Test
  void a_kind_that_always_fails_is_discarded_with_every_error_and_retry_brings_it_back()
      throws Exception {
    started();
    UUID probe = Ids.newId();
    UUID id = insert(new ProbeArgs(probe, 4));
    // The clock moves only once an attempt's failure is stored: moved earlier, the retry would
    // be scheduled from the moved clock and never come due.
    for (int attempt = 1; attempt <= 2; attempt++) {
      int a = attempt;
      await(
          "attempt " + a + " failed",
          () -> jobs.admin.show(id).attempt() == a && state(id) == JobState.RETRYABLE);
      clock.advance(Duration.ofMinutes(1));
    }
    await("discarded", () -> state(id) == JobState.DISCARDED);
    assertThat(runs.get(probe).get()).isEqualTo(3);
    JobView dead = jobs.admin.show(id);
    assertThat(dead.attempt()).isEqualTo(3);
    assertThat(dead.errors()).hasSize(3);
    assertThat(dead.finalizedAt()).isPresent();

    JobView retried = jobs.admin.retry(id);
    assertThat(retried.state()).isEqualTo(JobState.AVAILABLE);
    assertThat(retried.attempt()).isZero();
    await(
        "worked again and failed",
        () -> runs.get(probe).get() == 4 && state(id) == JobState.RETRYABLE);
    clock.advance(Duration.ofMinutes(1));
    await("completed after the retry", () -> state(id) == JobState.COMPLETED);
    assertThat(jobs.admin.show(id).errors()).hasSize(4);
  }

  @Test
  void operators_get_clear_errors_for_unknown_and_finished_jobs() throws Exception {
    started();
    UUID unknown = Ids.newId();
    assertThatThrownBy(() -> jobs.admin.retry(unknown))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("no job has the id " + unknown)
        .satisfies(e -> assertThat(((BothyException) e).kind()).isEqualTo(ErrorKind.NOT_FOUND));
    UUID id = insert(new ProbeArgs(Ids.newId(), 0));
    await("completed", () -> state(id) == JobState.COMPLETED);
    assertThatThrownBy(() -> jobs.admin.retry(id))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("is completed")
        .satisfies(e -> assertThat(((BothyException) e).kind()).isEqualTo(ErrorKind.CONFLICT));
    assertThatThrownBy(() -> jobs.admin.cancel(id))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("already completed");
  }

  @Test
  void an_operator_cancels_a_waiting_job() throws Exception {
    UUID id =
        jobs.uow
            .run(
                () ->
                    jobs.inserter.insertTx(
                        List.of(
                            JobInsert.of(new ProbeArgs(Ids.newId(), 0))
                                .runAt(clock.now().plus(Duration.ofHours(1))))))
            .ids()
            .get(0)
            .orElseThrow();
    assertThat(state(id)).isEqualTo(JobState.SCHEDULED);
    JobView cancelled = jobs.admin.cancel(id);
    assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
    assertThat(cancelled.errors()).extracting(JobError::kind).containsExactly("cancelled");
  }

  @Test
  void the_rescuer_returns_a_job_left_running_by_a_dead_runtime() throws Exception {
    UUID probe = Ids.newId();
    UUID id = insert(new SlowArgs(probe, 0));
    // A runtime that fetched the job and died: the row says running, attempted long ago.
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "UPDATE jobs SET state = 'running', attempt = 1, attempted_at = '"
              + clock.now()
              + "', attempted_by = 'gone' WHERE id = '"
              + id
              + "'");
    }
    PgJobRuntime runtime = started();
    maintained(runtime);
    Thread.sleep(300);
    assertThat(state(id)).as("not yet past jobs.rescueAfter").isEqualTo(JobState.RUNNING);

    clock.advance(Duration.ofMinutes(11));
    maintained(runtime);
    await("worked once more", () -> runs.containsKey(probe));
    await("completed", () -> state(id) == JobState.COMPLETED);
    JobView job = jobs.admin.show(id);
    assertThat(job.attempt()).isEqualTo(2);
    assertThat(job.errors()).extracting(JobError::kind).containsExactly("rescued");
    assertThat(runs.get(probe).get()).isEqualTo(1);
  }

  @Test
  void stop_lets_a_job_finish_within_the_budget_and_hands_back_one_past_it() throws Exception {
    PgJobRuntime first = started();
    UUID quick = Ids.newId();
    UUID quickJob = insert(new SlowArgs(quick, 300));
    await("the quick job started", () -> runs.containsKey(quick));
    first.stop(Duration.ofSeconds(5));
    assertThat(state(quickJob)).isEqualTo(JobState.COMPLETED);

    PgJobRuntime second = jobs.runtime(PG.app(), settings());
    second.start();
    UUID slow = Ids.newId();
    UUID slowJob = insert(new HandBackArgs(slow));
    await("the slow job started", () -> runs.containsKey(slow));
    second.stop(Duration.ofMillis(100));
    JobView handedBack = jobs.admin.show(slowJob);
    assertThat(handedBack.state()).isEqualTo(JobState.AVAILABLE);
    assertThat(handedBack.attempt()).as("the attempt is not counted").isZero();
    assertThat(handedBack.errors()).isEmpty();

    PgJobRuntime third = jobs.runtime(PG.app(), settings());
    third.start();
    await("completed by the new runtime", () -> state(slowJob) == JobState.COMPLETED);
    assertThat(runs.get(slow).get()).as("interrupted once, worked once more").isEqualTo(2);
    assertThat(jobs.admin.show(slowJob).attempt()).isEqualTo(1);
  }

  @Test
  void a_timeout_or_an_error_fails_the_attempt_and_the_worker_goes_on() throws Exception {
    record BoomArgs(UUID id) {}
    jobs.registry.register(
        JobKind.builder(
                "test.boom",
                BoomArgs.class,
                (ctx, args) -> {
                  runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  throw new StackOverflowError("deep");
                })
            .maxAttempts(1)
            .build());
    started();
    UUID boom = insert(new BoomArgs(Ids.newId()));
    UUID slow = insert(new SlowArgs(Ids.newId(), 60_000));
    await("the error discarded the job", () -> state(boom) == JobState.DISCARDED);
    assertThat(jobs.admin.show(boom).errors().get(0).error())
        .isEqualTo(StackOverflowError.class.getName());
    await("the timeout failed the attempt", () -> state(slow) == JobState.RETRYABLE);
    assertThat(jobs.admin.show(slow).errors())
        .extracting(JobError::kind)
        .containsExactly("timeout");
    UUID after = Ids.newId();
    UUID next = insert(new ProbeArgs(after, 0));
    await("the workers still work", () -> state(next) == JobState.COMPLETED);
  }

  @Test
  void a_job_can_snooze_without_counting_the_attempt_or_cancel_itself() throws Exception {
    started();
    UUID snoozer = insert(new EndArgs(Ids.newId(), true));
    UUID canceller = insert(new EndArgs(Ids.newId(), false));
    await("snoozed", () -> state(snoozer) == JobState.SCHEDULED);
    assertThat(jobs.admin.show(snoozer).attempt()).isZero();
    assertThat(jobs.admin.show(snoozer).scheduledAt())
        .isEqualTo(clock.now().plus(Duration.ofMinutes(5)));
    await("cancelled", () -> state(canceller) == JobState.CANCELLED);
    assertThat(jobs.admin.show(canceller).errors())
        .extracting(JobError::message)
        .containsExactly("no longer needed");
    clock.advance(Duration.ofMinutes(5));
    await("worked after the snooze", () -> state(snoozer) == JobState.COMPLETED);
    assertThat(jobs.admin.show(snoozer).attempt()).isEqualTo(1);
  }

  @Test
  void a_snoozed_job_is_fetched_when_it_is_due_not_at_the_next_poll() throws Exception {
    // A poll far beyond the test's wait and no insert to notify: only the runtime's own wake at
    // the end of the snooze can fetch the job again (D-WF-2; the webhooks rate limit snoozes
    // deliveries to the next one-second window).
    JobSettings base = settings();
    JobSettings slowPoll =
        new JobSettings(
            base.queues(),
            Duration.ofMinutes(10),
            base.fetchLookback(),
            base.retryBaseDelay(),
            base.retryMaxDelay(),
            base.rescueAfter(),
            base.completedRetention(),
            base.discardedRetention(),
            base.maintenanceInterval(),
            base.cleanerBatchSize(),
            base.errorMessageMaxChars(),
            base.listenReconnectBackoffCap());
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), slowPoll);
    runtime.start();
    UUID id = Ids.newId();
    UUID job = insert(new BriefSnoozeArgs(id));
    await("snoozed", () -> runs.containsKey(id) && state(job) == JobState.SCHEDULED);
    clock.advance(BRIEF_SNOOZE);

    await("worked again after the snooze", () -> state(job) == JobState.COMPLETED);
    assertThat(runs.get(id)).hasValue(2);
  }

  @Test
  void a_duplicate_unique_key_is_skipped_and_reported() {
    InsertResult result =
        jobs.uow.run(
            () ->
                jobs.inserter.insertTx(
                    List.of(
                        JobInsert.of(new ProbeArgs(Ids.newId(), 0)).uniqueKey("robin"),
                        JobInsert.of(new ProbeArgs(Ids.newId(), 0)).uniqueKey("robin"),
                        JobInsert.of(new ProbeArgs(Ids.newId(), 0)))));
    assertThat(result.skipped()).containsExactly(1);
    assertThat(result.inserted()).isEqualTo(2);
    InsertResult again =
        jobs.uow.run(
            () ->
                jobs.inserter.insertTx(
                    List.of(JobInsert.of(new ProbeArgs(Ids.newId(), 0)).uniqueKey("robin"))));
    assertThat(again.skipped()).containsExactly(0);
    assertThat(jobs.admin.list(Optional.empty(), Optional.empty(), 10)).hasSize(2);
  }

  @Test
  void registration_rejects_unsafe_args_duplicates_and_late_kinds() {
    assertThatThrownBy(
            () ->
                jobs.registry.register(
                    JobKind.builder("test.unsafe", UnsafeArgs.class, (c, a) -> {}).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UnsafeArgs.payload is a String");
    assertThatThrownBy(
            () ->
                jobs.registry.register(
                    JobKind.builder("test.probe", SafeArgs.class, (c, a) -> {}).build()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("registered twice");
    assertThatThrownBy(
            () ->
                jobs.registry.register(
                    JobKind.builder("test.too_slow", SafeArgs.class, (c, a) -> {})
                        .timeout(Duration.ofMinutes(10))
                        .build()))
        .hasMessageContaining("shorter than jobs.rescueAfter");
    jobs.registry.register(JobKind.builder("test.safe", SafeArgs.class, (c, a) -> {}).build());
    jobs.registry.freeze();
    assertThatThrownBy(
            () ->
                jobs.registry.register(
                    JobKind.builder("test.late", PairArgs.class, (c, a) -> {}).build()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("frozen");
  }

  record AsyncArgs(UUID id) {}

  /** Registers test.async on the pairs queue (2 workers): its work is a future the test ends. */
  private Map<UUID, CompletableFuture<Object>> registerAsync(Duration timeout) {
    Map<UUID, CompletableFuture<Object>> started = new ConcurrentHashMap<>();
    jobs.registry.register(
        JobKind.asyncBuilder(
                "test.async",
                AsyncArgs.class,
                (ctx, args, blocking) -> {
                  runs.computeIfAbsent(args.id(), k -> new AtomicInteger()).incrementAndGet();
                  CompletableFuture<Object> work = new CompletableFuture<>();
                  started.put(args.id(), work);
                  return work;
                })
            .queue("pairs")
            .timeout(timeout)
            .maxAttempts(3)
            .build());
    return started;
  }

  @Test
  void an_async_job_holds_its_workers_slot_until_its_work_ends_and_ends_as_a_thread_job_does()
      throws Exception {
    Map<UUID, CompletableFuture<Object>> started = registerAsync(Duration.ofMinutes(1));
    started();
    UUID first = Ids.newId();
    UUID second = Ids.newId();
    UUID third = Ids.newId();
    UUID firstJob = insert(new AsyncArgs(first));
    UUID secondJob = insert(new AsyncArgs(second));
    await("two started", () -> started.size() == 2);
    UUID thirdJob = insert(new AsyncArgs(third));
    Thread.sleep(500);
    assertThat(started).as("both of the queue's slots are held").hasSize(2);

    started.get(first).complete(null);
    await("the first completed", () -> state(firstJob) == JobState.COMPLETED);
    await("the third started in the freed slot", () -> started.containsKey(third));

    JobContext context = new JobContext(secondJob, "test.async", 1, 3, Instant.EPOCH);
    started.get(second).completeExceptionally(context.snooze(Duration.ofMinutes(5)));
    await("the second snoozed", () -> state(secondJob) == JobState.SCHEDULED);
    assertThat(jobs.admin.show(secondJob).attempt()).as("a snooze is not an attempt").isZero();

    started.get(third).completeExceptionally(new IllegalStateException("refused"));
    await("the third failed", () -> state(thirdJob) == JobState.RETRYABLE);
    assertThat(jobs.admin.show(thirdJob).errors())
        .extracting(JobError::error, JobError::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(IllegalStateException.class.getName(), "refused"));
  }

  @Test
  void an_async_job_past_its_timeout_fails_and_its_work_is_cancelled() throws Exception {
    Map<UUID, CompletableFuture<Object>> started = registerAsync(Duration.ofSeconds(1));
    started();
    UUID id = Ids.newId();
    UUID job = insert(new AsyncArgs(id));
    await("the timeout failed the attempt", () -> state(job) == JobState.RETRYABLE);
    assertThat(jobs.admin.show(job).errors()).extracting(JobError::kind).containsExactly("timeout");
    assertThat(started.get(id).isCancelled()).as("the work was told to stop").isTrue();
  }

  @Test
  void a_unit_that_completes_a_job_after_its_attempt_timed_out_changes_nothing_later()
      throws Exception {
    record LateArgs(UUID id) {}
    JobCompletionService completions = new JobCompletionService(jobs.uow, clock);
    Map<Integer, JobContext> attempts = new ConcurrentHashMap<>();
    Map<Integer, CompletableFuture<Object>> works = new ConcurrentHashMap<>();
    jobs.registry.register(
        JobKind.asyncBuilder(
                "test.async_late",
                LateArgs.class,
                (ctx, args, blocking) -> {
                  CompletableFuture<Object> work = new CompletableFuture<>();
                  works.put(ctx.attempt(), work);
                  attempts.put(ctx.attempt(), ctx);
                  return work;
                })
            .timeout(Duration.ofSeconds(1))
            .maxAttempts(3)
            .build());
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), settings());
    runtime.serve(completions);
    runtime.start();
    UUID job = insert(new LateArgs(Ids.newId()));
    await("the first attempt timed out", () -> state(job) == JobState.RETRYABLE);

    // The first attempt's work commits its unit after the timeout: the job is no longer its.
    jobs.uow.run(
        () -> {
          completions.completeTx(List.of(attempts.get(1)));
          return null;
        });
    assertThat(state(job)).isEqualTo(JobState.RETRYABLE);

    clock.advance(Duration.ofHours(1));
    await("the second attempt started", () -> works.containsKey(2));
    // Once more while the second attempt runs: still not the first attempt's job to complete.
    jobs.uow.run(
        () -> {
          completions.completeTx(List.of(attempts.get(1)));
          return null;
        });
    assertThat(state(job)).as("the second attempt still runs").isEqualTo(JobState.RUNNING);
    works.get(2).completeExceptionally(new IllegalStateException("second"));
    await(
        "the second attempt's failure is recorded",
        () -> jobs.admin.show(job).errors().size() == 2);
    assertThat(state(job)).isEqualTo(JobState.RETRYABLE);
  }

  @Test
  void an_async_work_that_throws_at_its_start_fails_the_attempt() throws Exception {
    record ThrowingArgs(UUID id) {}
    jobs.registry.register(
        JobKind.asyncBuilder(
                "test.async_throws",
                ThrowingArgs.class,
                (ctx, args, blocking) -> {
                  throw new IllegalArgumentException("bad start");
                })
            .build());
    started();
    UUID job = insert(new ThrowingArgs(Ids.newId()));
    await("failed", () -> state(job) == JobState.RETRYABLE);
    assertThat(jobs.admin.show(job).errors())
        .extracting(JobError::message)
        .containsExactly("bad start");
  }

  @Test
  void stop_waits_for_async_jobs_within_the_budget_and_hands_back_those_past_it() throws Exception {
    Map<UUID, CompletableFuture<Object>> started = registerAsync(Duration.ofMinutes(5));
    PgJobRuntime first = started();
    UUID quick = Ids.newId();
    UUID quickJob = insert(new AsyncArgs(quick));
    await("the quick job started", () -> started.containsKey(quick));
    CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS)
        .execute(() -> started.get(quick).complete(null));
    first.stop(Duration.ofSeconds(5));
    assertThat(state(quickJob)).isEqualTo(JobState.COMPLETED);

    PgJobRuntime second = jobs.runtime(PG.app(), settings());
    second.start();
    UUID slow = Ids.newId();
    UUID slowJob = insert(new AsyncArgs(slow));
    await("the slow job started", () -> started.containsKey(slow));
    second.stop(Duration.ofMillis(100));
    assertThat(started.get(slow).isCancelled()).as("the stop cancelled its work").isTrue();
    JobView handedBack = jobs.admin.show(slowJob);
    assertThat(handedBack.state()).isEqualTo(JobState.AVAILABLE);
    assertThat(handedBack.attempt()).as("the attempt is not counted").isZero();
    assertThat(handedBack.errors()).isEmpty();
  }

  @Test
  void a_stop_within_its_budget_still_runs_what_async_work_hands_to_its_worker_threads()
      throws Exception {
    record HandingArgs(UUID id) {}
    Map<UUID, CompletableFuture<Object>> started = new ConcurrentHashMap<>();
    Map<UUID, String> ranOn = new ConcurrentHashMap<>();
    jobs.registry.register(
        JobKind.asyncBuilder(
                "test.async_handing",
                HandingArgs.class,
                (ctx, args, blocking) -> {
                  CompletableFuture<Object> work = new CompletableFuture<>();
                  started.put(args.id(), work);
                  // What follows the wait blocks, so it goes to the queue's worker threads.
                  return work.thenRunAsync(
                      () -> ranOn.put(args.id(), Thread.currentThread().getName()), blocking);
                })
            .queue("pairs")
            .build());
    PgJobRuntime runtime = started();
    UUID id = Ids.newId();
    UUID job = insert(new HandingArgs(id));
    await("started", () -> started.containsKey(id));
    CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS)
        .execute(() -> started.get(id).complete(null));
    runtime.stop(Duration.ofSeconds(5));
    assertThat(state(job)).as("completed within the stop's budget").isEqualTo(JobState.COMPLETED);
    assertThat(ranOn.get(id)).startsWith("bothy-jobs-pairs-");
  }

  @Test
  void an_async_work_gets_its_queues_worker_threads_for_what_blocks() throws Exception {
    record BlockingArgs(UUID id) {}
    Map<UUID, String> threads = new ConcurrentHashMap<>();
    jobs.registry.register(
        JobKind.asyncBuilder(
                "test.async_blocking",
                BlockingArgs.class,
                (ctx, args, blocking) ->
                    CompletableFuture.runAsync(
                        () -> threads.put(args.id(), Thread.currentThread().getName()), blocking))
            .queue("pairs")
            .build());
    started();
    UUID id = Ids.newId();
    UUID job = insert(new BlockingArgs(id));
    await("completed", () -> state(job) == JobState.COMPLETED);
    assertThat(threads.get(id)).startsWith("bothy-jobs-pairs-");
  }

  @Test
  void a_queue_never_runs_more_jobs_at_once_than_its_workers() throws Exception {
    List<JobInsert> inserts = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      inserts.add(JobInsert.of(new PairArgs(Ids.newId())));
    }
    jobs.uow.run(() -> jobs.inserter.insertTx(inserts));
    started();
    await("all ran", () -> runs.size() == 40);
    assertThat(pairPeak.get()).isEqualTo(2);
  }

  @Test
  void a_periodic_job_is_one_per_kind_and_no_rarer_than_the_retentions() {
    jobs.registry.registerPeriodic(new PeriodicJob(new PairArgs(Ids.newId()), Duration.ofDays(2)));
    assertThatThrownBy(
            () ->
                jobs.registry.registerPeriodic(
                    new PeriodicJob(new PairArgs(Ids.newId()), Duration.ofHours(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("test.pair already has a periodic job");
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), settings());
    assertThatThrownBy(runtime::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("jobs.completedRetention or jobs.discardedRetention");
  }

  @Test
  void a_start_with_a_kind_on_an_unconfigured_queue_fails_naming_the_key() {
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), JobsFixture.settings(Map.of("default", 1)));
    assertThatThrownBy(runtime::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("queue 'pairs', which jobs.queues does not list");
  }

  @Test
  void the_cleaner_deletes_finished_jobs_after_their_retention_and_periodic_jobs_dedupe()
      throws Exception {
    record TickArgs() {}
    CountDownLatch ticked = new CountDownLatch(1);
    jobs.registry.register(
        JobKind.builder("test.tick", TickArgs.class, (c, a) -> ticked.countDown()).build());
    jobs.registry.registerPeriodic(new PeriodicJob(new TickArgs(), Duration.ofHours(1)));
    PgJobRuntime runtime = started();
    UUID done = insert(new ProbeArgs(Ids.newId(), 0));
    await("completed", () -> state(done) == JobState.COMPLETED);
    maintained(runtime);
    maintained(runtime);
    assertThat(ticked.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(jobs.admin.list(Optional.empty(), Optional.of("test.tick"), 10))
        .as("one periodic job per period, however often the maintenance runs")
        .hasSize(1);

    clock.advance(Duration.ofDays(1).plusSeconds(1));
    maintained(runtime);
    assertThatThrownBy(() -> jobs.admin.show(done))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("no job has the id");
    assertThat(jobs.admin.list(Optional.empty(), Optional.of("test.tick"), 10))
        .as("the next period inserted the next one")
        .isNotEmpty();
  }

  @Test
  void two_maintenance_passes_at_once_run_one_at_a_time() throws Exception {
    PgJobRuntime runtime = started();
    try (Connection other = PG.app().getConnection()) {
      other.setAutoCommit(false);
      // The runtime's own first pass may hold the lock for a moment: take it once that ends.
      await("the lock is taken by another worker", () -> tryMaintenanceLock(other));
      assertThat(runtime.maintain()).as("another worker holds the maintenance").isFalse();
      other.commit();
    }
    maintained(runtime);
  }

  private static boolean tryMaintenanceLock(Connection c) {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT pg_try_advisory_xact_lock(" + 0x626f7468795f6a62L + ")")) {
      rs.next();
      return rs.getBoolean(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs a maintenance pass; the runtime's own first pass may hold the lock for a moment. */
  private static void maintained(PgJobRuntime runtime) throws InterruptedException {
    await("a maintenance pass ran", runtime::maintain);
  }

  @Test
  void deferred_inserts_are_written_at_commit_in_one_go_and_gone_on_rollback() throws Exception {
    UUID kept = Ids.newId();
    jobs.uow.run(
        () -> {
          jobs.inserter.insertLater(List.of(JobInsert.of(new ProbeArgs(kept, 0))));
          jobs.inserter.insertLater(
              List.of(JobInsert.of(new ProbeArgs(Ids.newId(), 0)).uniqueKey("sam")));
          jobs.inserter.insertLater(
              List.of(JobInsert.of(new ProbeArgs(Ids.newId(), 0)).uniqueKey("sam")));
          assertThat(
                  dev.bothy.platform.pg.PgTx.dsl()
                      .resultQuery("select count(*) from jobs")
                      .fetchOne(0, Long.class))
              .as("nothing is written before the unit commits")
              .isZero();
          return null;
        });
    assertThat(jobs.admin.list(Optional.empty(), Optional.empty(), 10))
        .as("a duplicate unique key is skipped silently")
        .hasSize(2);
    assertThatThrownBy(
            () ->
                jobs.uow.run(
                    () -> {
                      jobs.inserter.insertLater(
                          List.of(JobInsert.of(new ProbeArgs(Ids.newId(), 0))));
                      throw new IllegalStateException("roll back");
                    }))
        .hasMessage("roll back");
    assertThat(jobs.admin.list(Optional.empty(), Optional.empty(), 10)).hasSize(2);
    assertThatThrownBy(
            () -> jobs.inserter.insertLater(List.of(JobInsert.of(new ProbeArgs(kept, 0)))))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("work phase");
    assertThatThrownBy(
            () ->
                jobs.uow.run(
                    () -> {
                      jobs.inserter.insertLater(List.of(JobInsert.of(new UnsafeArgs(kept, "x"))));
                      return null;
                    }))
        .hasMessageContaining("no job kind takes");
    started();
    await("the deferred job ran", () -> runs.containsKey(kept));
  }
}
