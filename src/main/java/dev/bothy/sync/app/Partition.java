package dev.bothy.sync.app;

/**
 * One partition of {@code event_log}: the numbers {@code from} (inclusive) to {@code to}
 * (exclusive).
 *
 * @param name the partition table's name
 * @param from the first number it holds
 * @param to one past the last number it holds
 */
public record Partition(String name, long from, long to) {

  /**
   * Tells whether the partition holds a number.
   *
   * @param seq the number
   * @return true when {@code from <= seq < to}
   */
  public boolean holds(long seq) {
    return from <= seq && seq < to;
  }
}
