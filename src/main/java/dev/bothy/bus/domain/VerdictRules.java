package dev.bothy.bus.domain;

import dev.bothy.kernel.BothyException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The verdict rules of dispatch (ADR 0025), the same on both transports.
 *
 * <ul>
 *   <li>A {@link BothyException} whose kind is {@link dev.bothy.kernel.ErrorKind#retryable()} naks;
 *       any other kind, a plain exception and an {@link Error} term.
 *   <li>With several handlers on one message, any nak wins, then any term, then ack.
 *   <li>A nak waits {@link #delayAfter(int)}: 1 s, 5 s, 30 s, 2 min, then 10 min for every later
 *       delivery.
 *   <li>At most {@link #MAX_DELIVER} deliveries: a nak of the last one is terminal.
 * </ul>
 */
public final class VerdictRules {
  /** The most deliveries of one event to one consumer (JetStream's {@code MaxDeliver}). */
  public static final int MAX_DELIVER = 10;

  /** The waits after the first, second, ... failed delivery; the last repeats. */
  public static final List<Duration> NAK_DELAYS =
      List.of(
          Duration.ofSeconds(1),
          Duration.ofSeconds(5),
          Duration.ofSeconds(30),
          Duration.ofMinutes(2),
          Duration.ofMinutes(10));

  private VerdictRules() {}

  /**
   * The verdict of a handler that failed.
   *
   * @param failure what the handler (or its unit of work) threw
   * @return {@link Verdict#NAK} for a retryable {@link BothyException}, else {@link Verdict#TERM}
   */
  public static Verdict of(Throwable failure) {
    if (failure instanceof BothyException e && e.kind().retryable()) {
      return Verdict.NAK;
    }
    return Verdict.TERM;
  }

  /**
   * The verdict of one message from the verdicts of its handlers.
   *
   * @param verdicts one per handler that took the event; empty means nobody did
   * @return nak when any nak, else term when any term, else ack
   */
  public static Verdict combine(Collection<Verdict> verdicts) {
    if (verdicts.contains(Verdict.NAK)) {
      return Verdict.NAK;
    }
    if (verdicts.contains(Verdict.TERM)) {
      return Verdict.TERM;
    }
    return Verdict.ACK;
  }

  /**
   * The wait before the next delivery after a nak.
   *
   * @param deliveryCount the deliveries so far, the failed one included, from 1
   * @return 1 s after the first, 5 s, 30 s, 2 min, then 10 min
   * @throws IllegalArgumentException for a count below 1
   */
  public static Duration delayAfter(int deliveryCount) {
    if (deliveryCount < 1) {
      throw new IllegalArgumentException("delivery counts start at 1: " + deliveryCount);
    }
    return NAK_DELAYS.get(Math.min(deliveryCount, NAK_DELAYS.size()) - 1);
  }

  /**
   * Applies the delivery limit: a nak of the {@link #MAX_DELIVER}th delivery becomes a term, since
   * no delivery follows it (on NATS the server's max-deliveries advisory comes late and is lost
   * when nobody listens, so dispatch decides itself).
   *
   * @param verdict the message's verdict
   * @param deliveryCount this delivery's count, from 1
   * @return the verdict to act on
   */
  public static Verdict limited(Verdict verdict, int deliveryCount) {
    return verdict == Verdict.NAK && deliveryCount >= MAX_DELIVER ? Verdict.TERM : verdict;
  }

  /**
   * The error kind written into a dead letter: the {@link BothyException}'s kind code, {@code
   * error} for an {@link Error}, {@code exception} for any other throwable.
   *
   * @param failure the failure
   * @return the code
   */
  public static String failureKind(Throwable failure) {
    if (failure instanceof BothyException e) {
      return e.kind().code();
    }
    return failure instanceof Error ? "error" : "exception";
  }

  /**
   * The nak delay of a message's verdict.
   *
   * @param verdict the verdict after {@link #limited}
   * @param deliveryCount this delivery's count
   * @return the delay for a nak, empty otherwise
   */
  public static Optional<Duration> nakDelay(Verdict verdict, int deliveryCount) {
    return verdict == Verdict.NAK ? Optional.of(delayAfter(deliveryCount)) : Optional.empty();
  }
}
