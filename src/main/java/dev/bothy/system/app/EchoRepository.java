package dev.bothy.system.app;

import java.time.Instant;
import java.util.UUID;

/** The store of {@code system_echoes}, the projection of flow 00, through the unit of work. */
public interface EchoRepository {
  /**
   * Inserts the row of an echoed ping unless it exists ({@code ON CONFLICT DO NOTHING}): one row
   * per ping, what its {@code system.echoed} event says.
   *
   * @param pingId the ping's id
   * @param pingedEventId the id of the {@code system.pinged} event the echo answers
   * @param echoEventId the id of the {@code system.echoed} event
   * @param echoSeq its number in the log
   * @param echoedAt its time ({@code occurred_at})
   */
  void insert(UUID pingId, UUID pingedEventId, UUID echoEventId, long echoSeq, Instant echoedAt);

  /**
   * Deletes every row: the reset of a replay, inside its unit of work.
   *
   * @return the rows deleted
   */
  long deleteAll();
}
