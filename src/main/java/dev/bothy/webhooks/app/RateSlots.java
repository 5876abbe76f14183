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
    Taken taken = take(id, now, limit, 1);
    return taken.granted() == 1 ? Optional.empty() : Optional.of(taken.windowEnd());
  }

  /**
   * What a take got.
   *
   * @param granted attempts that may go now, from 0 to the number asked for
   * @param windowEnd when the window ends: the attempts not granted wait until then
   */
  record Taken(int granted, Instant windowEnd) {}

  /**
   * Takes {@code wanted} attempts of the subscription's current window for a batch of deliveries
   * (D-WB-1): from this process's claimed ones first, then by one claim in the caller's unit of the
   * larger of {@code claim} and what is still missing, never more than {@code limit}.
   *
   * @param id the subscription
   * @param now the time of the attempts
   * @param limit the subscription's {@code rate_limit}
   * @param wanted attempts asked for, at least 1
   * @return how many may go now; all of them when the subscription is gone, which the caller finds
   *     on its own
   */
  Taken take(UUID id, Instant now, int limit, int wanted) {
    if (wanted < 1) {
      throw new IllegalArgumentException("a take asks for at least one attempt");
    }
    sweep(now);
    Local slots = local.computeIfAbsent(id, k -> new Local());
    // One claim per subscription at a time in this process: the others wait here, not on the row.
    synchronized (slots) {
      int fromLocal = 0;
      if (slots.holds(now)) {
        fromLocal = Math.min(slots.left, wanted);
        slots.left = slots.left - fromLocal;
      }
      int missing = wanted - fromLocal;
      if (missing == 0) {
        return new Taken(wanted, slots.windowStart.plus(WINDOW));
      }
      Optional<SubscriptionRepository.RateClaim> claimed =
          subscriptions.claimRateSlots(id, now, limit, Math.min(Math.max(claim, missing), limit));
      if (claimed.isEmpty()) {
        local.remove(id, slots);
        return new Taken(wanted, now.plus(WINDOW));
      }
      SubscriptionRepository.RateClaim c = claimed.get();
      int used = Math.min(c.granted(), missing);
      // The caller's own attempts go only if the claim commits with its unit; the rest are
      // handed out once it did, so a claim rolled back never lends an attempt the row lost.
      int spare = c.granted() - used;
      if (spare > 0) {
        unitOfWork.afterCommit(() -> lend(slots, c.windowStart(), spare));
      }
      return new Taken(fromLocal + used, c.windowStart().plus(WINDOW));
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
