package dev.bothy.platform.telemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.util.Optional;

/**
 * The W3C trace context of the current span, for records that outlive the request that wrote them:
 * an event keeps the {@code traceparent} of the request that appended it, so a consumer's job can
 * be linked to it later. With the OpenTelemetry agent the server span of an HTTP request is current
 * on its thread; without the agent no span is valid and nothing is recorded.
 *
 * <pre>{@code
 * Optional<String> traceparent = TraceContext.currentTraceparent();
 * // 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
 * }</pre>
 */
public final class TraceContext {
  private static final String VERSION = "00";

  private TraceContext() {}

  /**
   * Returns the {@code traceparent} of the current span (version, trace id, span id and flags, as
   * the W3C Trace Context header writes them).
   *
   * @return the value, or empty when no valid span is current
   */
  public static Optional<String> currentTraceparent() {
    SpanContext context = Span.current().getSpanContext();
    if (!context.isValid()) {
      return Optional.empty();
    }
    return Optional.of(
        VERSION
            + "-"
            + context.getTraceId()
            + "-"
            + context.getSpanId()
            + "-"
            + context.getTraceFlags().asHex());
  }
}
