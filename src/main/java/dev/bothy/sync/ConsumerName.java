package dev.bothy.sync;

import java.util.List;
import java.util.Objects;

/**
 * The name of a worker consumer of the event log: a closed set, equal to the CHECK of {@code
 * event_consumer_cursors.name}. A record, not an enum, so a name read from outside (a
 * configuration, a test) that is not in the set can be represented and refused with {@link
 * #valid()}.
 *
 * <p>These are the worker consumers of the {@code worker} role, not the agent consumers that follow
 * the log over the API.
 *
 * @param value the name, for example {@code webhooks}
 */
public record ConsumerName(String value) {
  /** The consumer of push notifications. */
  public static final ConsumerName PUSH = new ConsumerName("push");

  /** The consumer of outgoing webhooks. */
  public static final ConsumerName WEBHOOKS = new ConsumerName("webhooks");

  /**
   * The bus's log transport: turns each event into one {@code bus.dispatch} job per bus handler
   * that takes its type.
   */
  public static final ConsumerName BUS = new ConsumerName("bus");

  /** Checks the value. */
  public ConsumerName {
    Objects.requireNonNull(value, "value");
  }

  /**
   * Every known name, exactly the set of the table's CHECK.
   *
   * @return push, webhooks and bus
   */
  public static List<ConsumerName> names() {
    return List.of(PUSH, WEBHOOKS, BUS);
  }

  /**
   * Whether the name is one of {@link #names()}.
   *
   * @return true for push, webhooks and bus
   */
  public boolean valid() {
    return names().contains(this);
  }

  @Override
  public String toString() {
    return value;
  }
}
