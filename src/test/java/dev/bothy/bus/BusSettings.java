package dev.bothy.bus;

import java.time.Duration;

/** Settings of the bus for the tests: the defaults of the configuration, a short timeout. */
final class BusSettings {
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(2);

  static final RelaySettings RELAY =
      new RelaySettings(
          500, 100, Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15));

  static final StreamSettings STREAM =
      new StreamSettings(true, 1, Duration.ofDays(30), Duration.ofMinutes(5), 64 * 1024);

  private BusSettings() {}

  static NatsSettings nats(String url, Credential credential) {
    return new NatsSettings(
        url,
        credential,
        CONNECTION_TIMEOUT,
        Duration.ofMillis(50),
        Duration.ofSeconds(1),
        "bothy-test");
  }

  static BusModule.Settings of(String url, Credential credential, boolean manage) {
    return new BusModule.Settings(
        nats(url, credential),
        new StreamSettings(
            manage,
            STREAM.replicas(),
            STREAM.maxAge(),
            STREAM.duplicateWindow(),
            STREAM.maxPayloadBytes()),
        RELAY);
  }
}
