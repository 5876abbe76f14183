package dev.bothy.platform.jobs.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JobExecutorTimersTest {
  @Test
  void a_watchdog_cancelled_when_its_job_ends_leaves_nothing_queued() {
    ScheduledThreadPoolExecutor timers = JobExecutor.watchdogTimers();
    try {
      // A job's watchdog is armed for its kind's timeout (bus.dispatch: 5 minutes) and cancelled
      // when the job ends, usually within milliseconds; at 1,500 jobs a second a cancelled task
      // that stayed queued until its delay ran out would keep 450,000 of them on the heap.
      for (int i = 0; i < 1000; i++) {
        ScheduledFuture<?> timer = timers.schedule(() -> {}, 5, TimeUnit.MINUTES);
        timer.cancel(false);
      }
      assertThat(timers.getQueue()).isEmpty();
      ScheduledFuture<?> armed = timers.schedule(() -> {}, 5, TimeUnit.MINUTES);
      assertThat(timers.getQueue()).hasSize(1);
      armed.cancel(false);
    } finally {
      timers.shutdownNow();
    }
  }

  @Test
  void the_watchdog_thread_is_a_named_daemon() throws Exception {
    ScheduledThreadPoolExecutor timers = JobExecutor.watchdogTimers();
    try {
      Thread thread = timers.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
      assertThat(thread.getName()).isEqualTo("bothy-jobs-timeouts");
      assertThat(thread.isDaemon()).isTrue();
    } finally {
      timers.shutdownNow();
    }
  }
}
