package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The session advisory lock on a real PostgreSQL: one holder at a time, and each way a holder dies
 * (it lets go, its backend is terminated, it goes silent) frees the lock for the next one within a
 * bounded time. A killed process is the relay crash test's part (RelayCrashTest).
 */
class SessionLockTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final long KEY = 4242L;

  // A key per test: a closed session's backend ends after close() returns, so the lock of one
  // test's last holder may still be held when the next test starts.
  private static SessionLock lock(String applicationName, Duration idle, long key) {
    return new SessionLock(
        new PoolSettings(
            PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), applicationName),
        key,
        idle);
  }

  @Test
  void only_one_session_holds_the_lock_and_a_release_hands_it_on() throws Exception {
    try (SessionLock alex = lock("lock-alex", Duration.ofMinutes(1), KEY + 1);
        SessionLock sam = lock("lock-sam", Duration.ofMinutes(1), KEY + 1)) {
      assertThat(alex.tryAcquire()).isTrue();
      assertThat(alex.tryAcquire()).as("held already").isTrue();
      assertThat(sam.tryAcquire()).isFalse();
      assertThat(alex.held()).isTrue();
      assertThat(sam.held()).isFalse();

      alex.release();

      assertThat(alex.held()).isFalse();
      // release() ends the session; the server frees the lock as the backend exits, which may
      // be a moment after the client closed it.
      boolean taken = sam.tryAcquire();
      for (int i = 0; i < 100 && !taken; i++) {
        Thread.sleep(20);
        taken = sam.tryAcquire();
      }
      assertThat(taken).isTrue();
      assertThat(alex.tryAcquire()).isFalse();
    }
  }

  @Test
  void a_terminated_backend_frees_the_lock_and_its_holder_learns_it_at_the_next_check()
      throws Exception {
    try (SessionLock alex = lock("lock-terminated", Duration.ofMinutes(1), KEY + 2);
        SessionLock sam = lock("lock-robin", Duration.ofMinutes(1), KEY + 2)) {
      assertThat(alex.tryAcquire()).isTrue();

      assertThat(
              PgExtension.rows(
                  PG.superuser(),
                  "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity"
                      + " WHERE application_name = 'lock-terminated'"))
          .containsExactly("true");

      // pg_terminate_backend signals the backend; it frees the lock as it exits.
      boolean taken = sam.tryAcquire();
      for (int i = 0; i < 100 && !taken; i++) {
        Thread.sleep(20);
        taken = sam.tryAcquire();
      }
      assertThat(taken).isTrue();
      assertThat(alex.held()).isFalse();
      assertThat(alex.tryAcquire()).as("reconnects, but the lock is taken").isFalse();
    }
  }

  @Test
  void a_silent_holder_loses_the_lock_after_the_idle_timeout() throws Exception {
    Duration idle = Duration.ofMillis(600);
    try (SessionLock alex = lock("lock-silent", idle, KEY + 3);
        SessionLock sam = lock("lock-waiting", Duration.ofMinutes(1), KEY + 3)) {
      // Before the acquire: the server counts the idle time from alex's last statement, which
      // ends before tryAcquire returns.
      Instant start = Instant.now();
      assertThat(alex.tryAcquire()).isTrue();
      boolean taken = false;
      // Bounded: the server ends the silent session after the idle timeout.
      while (!taken
          && Duration.between(start, Instant.now()).compareTo(Duration.ofSeconds(20)) < 0) {
        taken = sam.tryAcquire();
        if (!taken) {
          Thread.sleep(50);
        }
      }
      assertThat(taken).isTrue();
      assertThat(Duration.between(start, Instant.now())).isGreaterThanOrEqualTo(idle);
      assertThat(alex.held()).isFalse();
    }
  }

  @Test
  void a_holder_that_checks_more_often_than_the_idle_timeout_keeps_the_lock() throws Exception {
    Duration idle = Duration.ofSeconds(2);
    try (SessionLock alex = lock("lock-beating", idle, KEY + 4);
        SessionLock sam = lock("lock-hoping", Duration.ofMinutes(1), KEY + 4)) {
      assertThat(alex.tryAcquire()).isTrue();
      // Alex checks on a thread of its own, every 200 ms, as a relay's loop does: sam's connects
      // on a loaded machine never stretch the gap between two of alex's checks.
      AtomicInteger checks = new AtomicInteger();
      AtomicBoolean lost = new AtomicBoolean();
      ScheduledExecutorService beat = Executors.newSingleThreadScheduledExecutor();
      try {
        beat.scheduleWithFixedDelay(
            () -> {
              if (!alex.held()) {
                lost.set(true);
              }
              checks.incrementAndGet();
            },
            200,
            200,
            TimeUnit.MILLISECONDS);
        // Longer than the idle timeout, so a session that was not kept alive would have ended.
        Instant end = Instant.now().plus(idle.multipliedBy(2));
        while (Instant.now().isBefore(end)) {
          assertThat(sam.tryAcquire()).isFalse();
          Thread.sleep(100);
        }
      } finally {
        beat.shutdown();
        assertThat(beat.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(lost).as("alex lost the lock").isFalse();
      assertThat(checks.get()).as("alex's checks").isGreaterThanOrEqualTo(5);
      assertThat(
              PgExtension.rows(
                  PG.superuser(),
                  "SELECT count(*)::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                      + " WHERE l.locktype = 'advisory' AND l.granted"
                      + " AND a.application_name = 'lock-beating'"))
          .isEqualTo(List.of("1"));
    }
  }
}
