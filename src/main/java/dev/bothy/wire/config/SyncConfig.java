package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** The {@code sync} section: the event log. */
@Doc("The event log.")
public class SyncConfig {
  /** Default of {@code sync.maxPayloadBytes}: 64 KiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;

  /** Upper bound of {@code sync.maxPayloadBytes}: events carry facts, not documents. */
  public static final int MAX_PAYLOAD_BYTES_LIMIT = 1024 * 1024;

  @Doc(
      "Largest payload of one event, in bytes of its JSON; an append over it is refused as"
          + " invalid and nothing of its unit is written.")
  @Min(1)
  @Max(MAX_PAYLOAD_BYTES_LIMIT)
  @JsonProperty
  private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;

  /**
   * Returns {@code sync.maxPayloadBytes}.
   *
   * @return the limit in bytes
   */
  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }
}
