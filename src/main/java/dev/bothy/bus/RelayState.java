package dev.bothy.bus;

import java.util.Objects;
import java.util.Optional;

/**
 * What this process's relay is doing, for the health checks and gauges.
 *
 * @param mode the relay's mode
 * @param natsConnected whether the relay's connection to the NATS server is up
 * @param halt why the relay stopped, when {@link Mode#HALTED}
 * @param lastPublishedSeq the last event number the stream acknowledged in order, as this process
 *     last saw it (0 before its first round)
 */
public record RelayState(
    Mode mode, boolean natsConnected, Optional<Halt> halt, long lastPublishedSeq) {

  /** Checks the values. */
  public RelayState {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(halt, "halt");
  }

  /** The relay's modes. */
  public enum Mode {
    /** Not started, or stopped with the process. */
    OFF,
    /** Another process holds the lease; this one waits to take over. */
    STANDBY,
    /** Holds the lease and relays. */
    ACTIVE,
    /** Stopped because the stream and the log disagree; waits for an operator's republish. */
    HALTED
  }

  /**
   * Why the relay halted: a closed set, each with the operator's way out in the bus README.
   *
   * @param reason the code
   * @param streamLast the stream's last {@code Bothy-Seq} (0 when unknown or empty)
   * @param cursor the relay's cursor
   */
  public record Halt(Reason reason, long streamLast, long cursor) {
    /** Checks the values. */
    public Halt {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The reasons a relay halts. */
  public enum Reason {
    /** The stream lacks events the cursor says it has: purged or recreated. */
    STREAM_BEHIND_LOG("stream_behind_log"),
    /** An ack showed an event stored away from its place in the stream. */
    HOLE_IN_STREAM("hole_in_stream"),
    /** The stream's last message is not this log's event. */
    STREAM_MISMATCH("stream_mismatch"),
    /** Retention removed events the relay had not published yet. */
    BEHIND_RETENTION("behind_retention");

    private final String code;

    Reason(String code) {
      this.code = code;
    }

    /**
     * Returns the code in logs and health messages.
     *
     * @return the code
     */
    public String code() {
      return code;
    }
  }
}
