package dev.bothy.platform.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Background polls stay out of the recorded traces; the work they find is a root span of its own.
 * The SDK here samples as the agent does by default (parent-based, always on at the root).
 */
class TraceContextTest {
  @RegisterExtension static final OpenTelemetryExtension OTEL = OpenTelemetryExtension.create();

  private static Tracer tracer() {
    return OTEL.getOpenTelemetry().getTracer("test");
  }

  @Test
  void a_statement_run_untraced_records_no_span() {
    String result =
        TraceContext.untraced(
            () -> {
              tracer().spanBuilder("SELECT postgres").startSpan().end();
              return "polled";
            });

    assertThat(result).isEqualTo("polled");
    assertThat(OTEL.getSpans()).isEmpty();
  }

  @Test
  void work_found_by_an_untraced_poll_is_a_root_span_with_its_statements_under_it() {
    TraceContext.untraced(
        () -> {
          Span job = tracer().spanBuilder("job webhooks.deliver").setNoParent().startSpan();
          Scope scope = job.makeCurrent();
          try {
            tracer().spanBuilder("UPDATE postgres.jobs").startSpan().end();
          } finally {
            scope.close();
            job.end();
          }
          return null;
        });

    assertThat(OTEL.getSpans())
        .extracting(s -> s.getName())
        .containsExactlyInAnyOrder("job webhooks.deliver", "UPDATE postgres.jobs");
    assertThat(OTEL.getSpans())
        .extracting(s -> s.getTraceId())
        .containsOnly(OTEL.getSpans().get(0).getTraceId());
    assertThat(OTEL.getSpans())
        .filteredOn(s -> s.getName().startsWith("job"))
        .allSatisfy(s -> assertThat(s.getParentSpanContext().isValid()).isFalse());
  }

  @Test
  void an_untraced_context_is_never_an_event_s_traceparent_and_is_left_behind_afterwards() {
    assertThat(TraceContext.untraced(TraceContext::currentTraceparent)).isEmpty();
    assertThat(Span.current().getSpanContext().isValid()).isFalse();

    Span request = tracer().spanBuilder("POST /v1/events").startSpan();
    Scope scope = request.makeCurrent();
    try {
      assertThat(TraceContext.currentTraceparent())
          .hasValueSatisfying(v -> assertThat(v).contains(request.getSpanContext().getTraceId()));
    } finally {
      scope.close();
      request.end();
    }
  }

  @Test
  void untraced_call_passes_the_failure_on_and_restores_the_context() {
    IOException failure = new IOException("the database is away");

    assertThatThrownBy(
            () ->
                TraceContext.untracedCall(
                    () -> {
                      throw failure;
                    }))
        .isSameAs(failure);
    assertThat(Span.current().getSpanContext().isValid()).isFalse();
  }
}
