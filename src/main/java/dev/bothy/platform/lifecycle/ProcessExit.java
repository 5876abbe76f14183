package dev.bothy.platform.lifecycle;

/** Ends the process; a seam so in-JVM tests can observe {@link Lifecycle#fail(Throwable)}. */
@FunctionalInterface
public interface ProcessExit {

  /**
   * Ends the process with a status.
   *
   * @param status the exit status
   */
  void exit(int status);

  /**
   * Returns the real exit: {@link System#exit(int)} from a fresh thread, so a caller that holds a
   * lock the shutdown hooks need (or is itself a shutdown hook) cannot deadlock the exit.
   *
   * @return the real exit
   */
  static ProcessExit system() {
    return status -> {
      Thread exit = new Thread(() -> System.exit(status), "bothy-exit");
      exit.setDaemon(false);
      exit.start();
    };
  }
}
