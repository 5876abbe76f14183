package dev.bothy.bus.app;

/**
 * Core NATS messages that carry no guarantee: the live hints ({@code bothy.live.<handler>}) and the
 * dead-letter notices ({@code bothy.dead.<durable>}). Sent after the commit they announce; a lost
 * one loses nothing, since the database holds what it tells.
 */
public interface Notices {
  /** Sends nothing: a process without {@code bus.nats.url}. */
  Notices NONE = (subject, body) -> {};

  /**
   * Publishes one message; never blocks on the server and never throws for a lost connection.
   *
   * @param subject the subject
   * @param body the body, UTF-8 JSON
   */
  void publish(String subject, byte[] body);
}
