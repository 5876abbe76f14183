package dev.bothy.platform.jobs.runtime;

import java.time.Duration;

/** A wake-up flag a thread waits on with a timeout; signals that arrive while it works are kept. */
final class Signal {
  private boolean pending;

  synchronized void signal() {
    pending = true;
    notifyAll();
  }

  /** Waits until signalled or {@code timeout} passed; clears the flag. */
  synchronized void await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!pending) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    pending = false;
  }
}
