package dev.bothy.testkit;

import dev.bothy.sync.EventDraft;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * What a script step gets: it runs inside a unit of work of the run, so the module's own stores
 * join it, and appends its events through {@link #append}.
 */
public interface ScriptContext {
  /**
   * Appends events in the step's unit.
   *
   * @param drafts the events
   */
  void append(EventDraft... drafts);

  /**
   * Returns the run's fixed time, {@link ChaosSuite#START}.
   *
   * @return the time
   */
  Instant now();

  /**
   * Returns an id that is the same in every run for the same label: end states are compared by
   * value, so a script must not use random ids for what the consumer stores.
   *
   * @param label any text naming the thing, for example {@code "ping 3"}
   * @return a name-based UUID
   */
  default UUID id(String label) {
    return UUID.nameUUIDFromBytes(("bothy chaos " + label).getBytes(StandardCharsets.UTF_8));
  }
}
