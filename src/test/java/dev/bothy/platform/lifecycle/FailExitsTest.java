package dev.bothy.platform.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.ChildJvm;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailExitsTest {

  /** The child JVM's program: a lifecycle whose component fails. */
  public static final class FailingProcess {
    private FailingProcess() {}

    /**
     * Fails the lifecycle with the real process exit, then waits to be ended.
     *
     * @param args unused
     * @throws InterruptedException never, the exit ends the JVM first
     */
    public static void main(String[] args) throws InterruptedException {
      Lifecycle lifecycle =
          new Lifecycle(Duration.ofSeconds(5), ProcessExit.system(), System::nanoTime);
      lifecycle.fail(new IllegalStateException("consumer runner died"));
      lifecycle.fail(new UnsupportedOperationException("second failure"));
      Thread.sleep(60_000);
    }
  }

  @Test
  void fail_ends_a_real_process_with_exit_code_1_and_logs_once() throws Exception {
    ChildJvm.Result result = ChildJvm.run(FailingProcess.class.getName(), Duration.ofSeconds(60));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output())
        .containsOnlyOnce("component failed, the process exits with status 1");
    // The first failure only, named by its class: messages never reach the log.
    assertThat(result.output())
        .contains("error.type=java.lang.IllegalStateException")
        .doesNotContain("UnsupportedOperationException")
        .doesNotContain("consumer runner died")
        .doesNotContain("second failure");
  }
}
