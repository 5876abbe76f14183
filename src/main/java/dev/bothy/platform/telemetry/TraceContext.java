package dev.bothy.platform.telemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceId;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The W3C trace context of the current span, for records that outlive the request that wrote them:
 * an event keeps the {@code traceparent} of the request that appended it, so a consumer's job can
 * be linked to it later. With the OpenTelemetry agent the server span of an HTTP request is current
 * on its thread; without the agent no span is valid and nothing is recorded.
 *
 * <p>It also keeps background polls out of the recorded traces: {@link #untraced(Supplier)} runs
 * work under a parent that is not sampled, so the agent's sampler (parent-based, the default)
 * records none of the JDBC statements inside. A poll that finds nothing then costs no trace, and
 * work it finds starts a span of its own with no parent.
 *
 * <pre>{@code
 * Optional<String> traceparent = TraceContext.currentTraceparent();
 * // 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
 * long lag = TraceContext.untraced(consumers::lag); // a gauge read: never a trace
 * }</pre>
 */
public final class TraceContext {
  private static final String VERSION = "00";

  // Marks the parent that untraced(...) installs, so no event ever records it as its origin.
  private static final TraceState UNTRACED = TraceState.builder().put("bothy", "untraced").build();

  private TraceContext() {}

  /**
   * Returns the {@code traceparent} of the current span (version, trace id, span id and flags, as
   * the W3C Trace Context header writes them).
   *
   * @return the value, or empty when no valid span is current or the work runs {@link
   *     #untraced(Supplier) untraced}
   */
  public static Optional<String> currentTraceparent() {
    SpanContext context = Span.current().getSpanContext();
    if (!context.isValid() || "untraced".equals(context.getTraceState().get("bothy"))) {
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

  /**
   * Runs work outside any recorded trace: under a parent span context that is not sampled, so a
   * parent-based sampler (the OpenTelemetry agent's default) records no span the work starts, and
   * none of its JDBC statements. A span the work starts with {@code setNoParent()} is recorded as a
   * root as usual. Without the agent this only sets and restores the thread's context.
   *
   * @param work the work, a poll or a gauge read
   * @param <T> its result
   * @return what the work returned
   */
  public static <T> T untraced(Supplier<T> work) {
    Scope scope = enterUntraced();
    try {
      return work.get();
    } finally {
      scope.close();
    }
  }

  /**
   * Runs work that may throw outside any recorded trace, as {@link #untraced(Supplier)} does.
   *
   * @param work the work, such as one iteration of a background loop
   * @param <T> its result
   * @return what the work returned
   * @throws Exception what the work threw
   */
  public static <T> T untracedCall(Callable<T> work) throws Exception {
    Scope scope = enterUntraced();
    try {
      return work.call();
    } finally {
      scope.close();
    }
  }

  private static Scope enterUntraced() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    SpanContext parent =
        SpanContext.create(
            TraceId.fromLongs(random.nextLong(), random.nextLong() | 1L),
            SpanId.fromLong(random.nextLong() | 1L),
            TraceFlags.getDefault(),
            UNTRACED);
    return Context.root().with(Span.wrap(parent)).makeCurrent();
  }
}
