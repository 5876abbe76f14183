package dev.bothy.kernel.txn;

import java.util.Objects;

/**
 * A typed key for a value that lives as long as one unit of work (one attempt of it).
 *
 * <p>Keys compare by identity: declare each as a constant. Values never leak between units, and a
 * retried unit starts with no values.
 *
 * <pre>{@code
 * static final TxKey<List<EventDraft>> BUFFER = TxKey.of("sync.buffer");
 * List<EventDraft> buffer = uow.computeIfAbsent(BUFFER, ArrayList::new);
 * }</pre>
 *
 * @param <T> the type of the value
 */
public final class TxKey<T> {
  private final String name;

  private TxKey(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  /**
   * Creates a key.
   *
   * @param name a name for error messages, such as {@code "sync.buffer"}
   * @param <T> the type of the value
   * @return a new key, distinct from every other key
   */
  public static <T> TxKey<T> of(String name) {
    return new TxKey<>(name);
  }

  /**
   * Returns the name given at creation.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "TxKey[" + name + "]";
  }
}
