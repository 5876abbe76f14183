package dev.bothy.instance.app;

/** The storage of the sequence counters; called inside a unit of work only. */
public interface CounterRepository {

  /**
   * Adds {@code n} to a counter in one statement and keeps its row locked until commit.
   *
   * @param name a known counter name
   * @param n the amount, at least 1
   * @return the new value
   */
  long advance(String name, long n);

  /**
   * Reads a counter without a lock.
   *
   * @param name a known counter name
   * @return the value this transaction sees
   */
  long current(String name);
}
