package dev.bothy.bus;

import java.time.Instant;
import java.util.Objects;

/**
 * A NATS durable whose pulls in this process have failed since a time, with none succeeding since:
 * NATS away, its stream or durable gone, or a pull refused. The loop retries every {@code
 * bus.consumers.fetchWait}; the health check {@code bus_consumers} shows every such durable.
 *
 * @param durable the durable's name
 * @param since when the first pull of this failing stretch failed
 * @param errorType the class name of the last failure, never its message
 */
public record BusPullFailure(String durable, Instant since, String errorType) {
  /** Checks that no component is null. */
  public BusPullFailure {
    Objects.requireNonNull(durable, "durable");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(errorType, "errorType");
  }
}
