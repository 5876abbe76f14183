package dev.bothy.system;

/** Where a ping of flow 00 stands. */
public enum PingStatus {
  /** Recorded by {@code POST /v1/system/pings}; {@code system.pinged} appended with it. */
  PINGED("pinged"),
  /** Marked by the bus handler {@code system.echo}; {@code system.echoed} appended with it. */
  ECHOED("echoed");

  private final String code;

  PingStatus(String code) {
    this.code = code;
  }

  /**
   * Returns the status as stored and shown.
   *
   * @return {@code pinged} or {@code echoed}
   */
  public String code() {
    return code;
  }

  /**
   * Finds a status by its code.
   *
   * @param code the stored code
   * @return the status
   * @throws IllegalArgumentException for a code the table's CHECK would refuse
   */
  public static PingStatus fromCode(String code) {
    for (PingStatus s : values()) {
      if (s.code.equals(code)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown ping status: " + code);
  }
}
