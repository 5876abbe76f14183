package dev.bothy.webhooks.app;

import dev.bothy.kernel.txn.UnitOfWork;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This process's share of the subscriptions' rate limits (D-WP-2). The subscription's row stays the
 * authority, a fixed one-second window counted for every process; a process claims up to {@code
 * webhooks.rateLimitClaim} attempts of the window with one {@code UPDATE} and hands them to its
 * deliveries from memory, so a busy subscription's row is updated once per claim instead of once
 * per attempt.
 *
 * <p>The bound: the row counts every claimed attempt, so all processes together never send more
 * than {@code rate_limit} attempts in one window. Attempts a process claimed and did not use lapse
 * with the window, so with several processes a subscription may get fewer than its limit in a
 * window (up to the claim less one per process).
 *
 * <p>Thread-safe. {@link #take} runs in the caller's unit of work, whose claim locks the row until
 * that unit ends: call it last in the unit.
 */
final class RateSlots {
  private static final Duration WINDOW = Duration.ofSeconds(1);

  private final UnitOfWork unitOfWork;
  private final SubscriptionRepository subscriptions;
  private final int claim;
  private final Map<UUID, Local> local = new ConcurrentHashMap<>();
  private volatile Instant lastSweep = Instant.EPOCH;

  /** The attempts this process holds of one subscription's current window. */
  private static final class Local {
    // Written under the object's lock; volatile for the sweep, which reads without it.
    private volatile Instant windowStart = Instant.EPOCH;
    private volatile int left;

    boolean holds(Instant now) {
      return left > 0 && !now.isBefore(windowStart) && now.isBefore(windowStart.plus(WINDOW));
    }
  }

  /**
   * Creates the share.
   *
   * @param unitOfWork the unit of work of the callers; a claim's spare attempts are lent after its
   *     commit
   * @param subscriptions the store whose rows count the windows
   * @param claim {@code webhooks.rateLimitClaim}: attempts claimed at once, at least 1
   */
  RateSlots(UnitOfWork unitOfWork, SubscriptionRepository subscriptions, int claim) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    if (claim < 1) {
      throw new IllegalArgumentException("webhooks.rateLimitClaim must be at least 1");
    }
    this.claim = claim;
  }

  /**
   * Takes one attempt of the subscription's current window: from this process's claimed ones, or by
   * claiming {@code min(claim, limit)} more in the caller's unit.
   *
   * @param id the subscription
   * @param now the time of the attempt
   * @param limit the subscription's {@code rate_limit}
   * @return empty when the attempt may go now, else when the window ends (the attempt waits until
   *     then); empty as well when the subscription is gone, which the caller finds on its own
   */
  Optional<Instant> take(UUID id, Instant now, int limit) {
    sweep(now);
    Local slots = local.computeIfAbsent(id, k -> new Local());
    // One claim per subscription at a time in this process: the others wait here, not on the row.
    synchronized (slots) {
      if (slots.holds(now)) {
        slots.left = slots.left - 1;
        return Optional.empty();
      }
      Optional<SubscriptionRepository.RateClaim> claimed =
          subscriptions.claimRateSlots(id, now, limit, Math.min(claim, limit));
      if (claimed.isEmpty()) {
        local.remove(id, slots);
        return Optional.empty();
      }
      SubscriptionRepository.RateClaim c = claimed.get();
      if (c.granted() == 0) {
        return Optional.of(c.windowStart().plus(WINDOW));
      }
      // The caller's own attempt goes only if the claim commits with its unit; the rest are
      // handed out once it did, so a claim rolled back never lends an attempt the row lost.
      int spare = c.granted() - 1;
      if (spare > 0) {
        unitOfWork.afterCommit(() -> lend(slots, c.windowStart(), spare));
      }
      return Optional.empty();
    }
  }

  private static void lend(Local slots, Instant windowStart, int spare) {
    synchronized (slots) {
      if (slots.windowStart.equals(windowStart)) {
        slots.left = slots.left + spare;
      } else if (slots.windowStart.isBefore(windowStart)) {
        slots.windowStart = windowStart;
        slots.left = spare;
      }
    }
  }

  /** Forgets windows that ended, at most once per window, so the map holds the busy ones only. */
  private void sweep(Instant now) {
    Instant last = lastSweep;
    if (now.isBefore(last.plus(WINDOW)) && !now.isBefore(last)) {
      return;
    }
    lastSweep = now;
    // Without the entries' locks, so a sweep never waits for a claim: an entry removed while its
    // claim runs only strands that claim's attempts, which the row has counted (fewer, never more).
    local.values().removeIf(slots -> !slots.holds(now));
  }
}
