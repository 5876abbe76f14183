package dev.bothy.platform.lifecycle;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How a {@link ServiceLoop}'s threads block while they wait; a seam so tests decide when time has
 * passed, together with a settable {@link dev.bothy.kernel.Clock}.
 *
 * <p>The loop counts every wait on its clock and calls the pause again until its clock says the
 * wait is over, a wake came or the loop stops. So a pause may return early for any reason; it only
 * has to return no later than {@code atMost}, or when the monitor is notified.
 */
@FunctionalInterface
public interface Pause {

  /**
   * Blocks the calling thread, which holds the lock of {@code monitor}, until the monitor is
   * notified, the thread is interrupted or {@code atMost} has passed, whichever comes first; it may
   * return earlier.
   *
   * @param monitor the object whose lock the caller holds and whose notify ends the pause
   * @param atMost the longest the pause may last, positive
   * @throws InterruptedException when the thread is interrupted
   */
  void await(Object monitor, Duration atMost) throws InterruptedException;

  /**
   * Returns the pause of production: {@link Object#wait(long, int)} on the monitor, which releases
   * its lock while it waits.
   *
   * @return the real pause
   */
  static Pause real() {
    return (monitor, atMost) -> TimeUnit.NANOSECONDS.timedWait(monitor, atMost.toNanos());
  }
}
