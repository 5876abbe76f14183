package dev.bothy.platform.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** What an operator may do to a job in each state: the admin service and the console agree. */
class JobStateTest {
  @Test
  void retry_takes_discarded_retryable_scheduled_and_cancelled_jobs() {
    assertThat(Arrays.stream(JobState.values()).filter(JobState::operatorMayRetry))
        .containsExactlyInAnyOrder(
            JobState.DISCARDED, JobState.RETRYABLE, JobState.SCHEDULED, JobState.CANCELLED);
  }

  @Test
  void cancel_takes_every_job_that_has_not_finished() {
    assertThat(Arrays.stream(JobState.values()).filter(JobState::operatorMayCancel))
        .containsExactlyInAnyOrder(
            JobState.AVAILABLE, JobState.SCHEDULED, JobState.RUNNING, JobState.RETRYABLE);
    assertThat(Arrays.stream(JobState.values()).filter(JobState::isFinal))
        .noneMatch(JobState::operatorMayCancel);
  }
}
