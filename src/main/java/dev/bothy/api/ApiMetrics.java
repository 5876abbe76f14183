package dev.bothy.api;

/**
 * Where the HTTP API reports what it does; the assembly implements it over its metric registry.
 * Every label value comes from a closed set: route templates, not paths.
 */
public interface ApiMetrics {

  /**
   * Reports one finished request.
   *
   * @param route the route template, such as {@code POST /v1/events}
   * @param status the HTTP status
   * @param nanos how long it took
   */
  void request(String route, int status, long nanos);

  /** Reports a stream that opened. */
  void streamOpened();

  /** Reports a stream that closed. */
  void streamClosed();

  /**
   * Reports events written to streams.
   *
   * @param events how many
   */
  void streamed(int events);
}
