package dev.bothy.platform.jobs;

import java.util.UUID;

/**
 * Wraps each job's work in a trace span; {@code wire} implements it with the OpenTelemetry API (a
 * no-op without the agent), so this module stays free of tracing libraries.
 */
public interface JobTracer {
  /** Traces nothing; for tools and tests. */
  JobTracer NONE = (id, kind, attempt, body) -> body.run();

  /** The traced work. */
  @FunctionalInterface
  interface Body {
    /**
     * Runs the work.
     *
     * @throws Exception whatever the work throws; the span records it
     */
    void run() throws Exception;
  }

  /**
   * Runs {@code body} inside a span of the job's work.
   *
   * @param id the job's id
   * @param kind the kind's name
   * @param attempt the attempt, from 1
   * @param body the work
   * @throws Exception whatever the work throws, unchanged
   */
  void traced(UUID id, String kind, int attempt, Body body) throws Exception;
}
