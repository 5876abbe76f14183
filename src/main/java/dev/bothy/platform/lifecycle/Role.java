package dev.bothy.platform.lifecycle;

/**
 * What a Bothy process runs; chosen by the command ({@code api}, {@code worker}, {@code all}).
 *
 * <p>Components ask the role whether to start: the HTTP API and the log tail run where {@link
 * #servesApi()}, job workers, consumers and maintenance where {@link #runsWorkers()}.
 */
public enum Role {
  /** The HTTP API, the log tail and job inserts; no workers. */
  API("api"),
  /** Job workers, worker consumers and maintenance; the admin port only. */
  WORKER("worker"),
  /** Both, in one process. */
  ALL("all");

  private final String code;

  Role(String code) {
    this.code = code;
  }

  /**
   * Returns the command name of the role, also its metric label and log value.
   *
   * @return for example {@code "worker"}
   */
  public String code() {
    return code;
  }

  /**
   * Tells whether the role serves the HTTP API on an application port.
   *
   * @return true for {@link #API} and {@link #ALL}
   */
  public boolean servesApi() {
    return this != WORKER;
  }

  /**
   * Tells whether the role runs job workers, consumers and maintenance.
   *
   * @return true for {@link #WORKER} and {@link #ALL}
   */
  public boolean runsWorkers() {
    return this != API;
  }
}
