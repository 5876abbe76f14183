package dev.bothy.wire;

/**
 * A launcher for the child JVM of {@link StopDuringStartTest}: the real application with one more
 * start step, after every step of the application, that says it is held and then holds the start
 * for {@code bothy.test.holdStart} (a system property of the test, never a configuration key), so a
 * test can send SIGTERM while Jetty is still starting.
 */
final class HeldStartWorker {
  static final String HELD = "test start step held";

  private HeldStartWorker() {}

  public static void main(String[] args) throws Exception {
    long holdMillis = Long.getLong("bothy.test.holdStart", 3_000L);
    new BothyApplication(
            assembly ->
                assembly
                    .lifecycle()
                    .onStart(
                        "test_hold",
                        () -> {
                          org.slf4j.LoggerFactory.getLogger(HeldStartWorker.class).info(HELD);
                          Thread.sleep(holdMillis);
                        }))
        .run(args);
  }
}
