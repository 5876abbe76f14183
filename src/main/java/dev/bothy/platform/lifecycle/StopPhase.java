package dev.bothy.platform.lifecycle;

/** The phases of a shutdown, in the order they run. */
public enum StopPhase {
  /** HTTP: streams drain after the connectors stopped taking requests. */
  HTTP("http"),
  /** The worker consumers finish or roll back their round. */
  CONSUMERS("consumers"),
  /** Job workers finish or hand back their jobs. */
  JOBS("jobs"),
  /** The connection pool closes, then the embedded PostgreSQL stops. */
  POOL("pool");

  private final String code;

  StopPhase(String code) {
    this.code = code;
  }

  /**
   * Returns the lower-case name used in logs.
   *
   * @return for example {@code "consumers"}
   */
  public String code() {
    return code;
  }
}
