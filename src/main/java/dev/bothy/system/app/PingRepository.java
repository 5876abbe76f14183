package dev.bothy.system.app;

import dev.bothy.system.Ping;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** The store of {@code system_pings}, through the calling thread's unit of work. */
public interface PingRepository {
  /**
   * Inserts a ping with status {@code pinged}.
   *
   * @param id the ping's id
   * @param pingedAt when it was recorded
   */
  void insert(UUID id, Instant pingedAt);

  /**
   * Marks a ping echoed, only while it is {@code pinged} ({@code ... WHERE status = 'pinged'}), so
   * a second run of the handler for one event changes nothing.
   *
   * @param id the ping's id
   * @param echoedAt the delivery time
   * @return true when this call changed the row
   */
  boolean markEchoed(UUID id, Instant echoedAt);

  /**
   * Reads a ping.
   *
   * @param id the ping's id
   * @return the ping, or empty
   */
  Optional<Ping> find(UUID id);
}
