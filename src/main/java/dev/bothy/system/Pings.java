package dev.bothy.system;

import java.util.Optional;
import java.util.UUID;

/** Flow 00's verbs behind {@code /v1/system/pings}. */
public interface Pings {
  /**
   * Records a ping with status {@code pinged} and appends {@code system.pinged} in one unit: the
   * calling thread's unit when there is one (so a caller can add its own writes, such as an
   * idempotency key, that commit with it), else a unit of its own. The bus handler {@code
   * system.echo} echoes it after the commit.
   *
   * @return the ping's id
   * @throws dev.bothy.kernel.BothyException {@code unavailable} when the database is
   */
  UUID record();

  /**
   * Reads a ping.
   *
   * @param id the ping's id
   * @return the ping, or empty when none has the id
   */
  Optional<Ping> find(UUID id);
}
