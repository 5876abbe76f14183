package dev.bothy.sync.app;

/**
 * Where the append path reports what it did; implemented by the assembly over the metric registry,
 * so the module itself stays free of a metrics library.
 */
public interface AppendMetrics {

  /**
   * Reports a committed unit that appended events.
   *
   * @param events how many events it appended
   * @param lockHeldNanos how long it held the {@code event_seq} row lock: from the counter advance
   *     until the commit returned, the serialization window of the whole system
   */
  void committed(int events, long lockHeldNanos);
}
