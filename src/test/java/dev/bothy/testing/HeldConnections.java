package dev.bothy.testing;

import dev.bothy.kernel.txn.UnitOfWork;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Takes every connection of a pool by opening that many units of work that wait until {@link
 * #close()}: what a scrape or a request meets when the pool is exhausted.
 */
public final class HeldConnections implements AutoCloseable {
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<Thread> holders = new ArrayList<>();

  private HeldConnections() {}

  /**
   * Opens {@code count} units on their own threads and returns once each holds its connection.
   *
   * @param unitOfWork the process's unit of work
   * @param count the pool's size
   * @return the held connections; close to give them back
   * @throws InterruptedException when interrupted while waiting
   * @throws AssertionError when the units do not all start within 30 seconds
   */
  public static HeldConnections take(UnitOfWork unitOfWork, int count) throws InterruptedException {
    HeldConnections held = new HeldConnections();
    CountDownLatch entered = new CountDownLatch(count);
    for (int i = 0; i < count; i++) {
      Thread holder =
          new Thread(
              () ->
                  unitOfWork.run(
                      () -> {
                        entered.countDown();
                        held.release.await();
                        return null;
                      }),
              "held-connection-" + i);
      holder.start();
      held.holders.add(holder);
    }
    if (!entered.await(30, TimeUnit.SECONDS)) {
      held.close();
      throw new AssertionError("not every connection could be taken within 30 seconds");
    }
    return held;
  }

  /** Ends the units and waits up to 30 seconds for their threads. */
  @Override
  public void close() {
    release.countDown();
    try {
      for (Thread holder : holders) {
        holder.join(TimeUnit.SECONDS.toMillis(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
