package dev.bothy.instance;

/**
 * The sequence counters: the serialization points that make the event sequence, the audit chain and
 * the permission version gapless and commit-ordered.
 *
 * <p>Only phase hooks use this port (an ArchUnit rule derived from the hook registrations), and
 * each counter only in its own phase: {@code permission_version} in {@code rights_begin}, {@code
 * event_seq} in {@code sync}, {@code audit_seq} in {@code audit}. The row lock taken by {@link
 * #advance} is held until the unit commits, so a unit that advances a counter later waits, then
 * reads the committed value: the numbers follow commit order and a rollback leaves no gap.
 *
 * <pre>{@code
 * long last = counters.advance(CounterName.EVENT_SEQ, drafts.size());
 * long first = last - drafts.size() + 1;
 * }</pre>
 */
public interface Counters {

  /**
   * Advances a counter by {@code n} and locks its row until the unit commits.
   *
   * @param name the counter
   * @param n how many numbers to take, at least 1
   * @return the new value: the unit owns the numbers {@code last - n + 1 .. last}
   * @throws dev.bothy.kernel.BothyException {@code internal} for an unknown name, {@code n < 1},
   *     outside a unit of work, or outside the counter's phase (the message names counter and
   *     phase)
   */
  long advance(CounterName name, long n);

  /**
   * Reads a counter without locking it: the value this unit advanced it to, or the committed one.
   *
   * @param name the counter
   * @return the value
   * @throws dev.bothy.kernel.BothyException {@code internal} for an unknown name, outside a unit of
   *     work, or outside the hook phases
   */
  long current(CounterName name);
}
