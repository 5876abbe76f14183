package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.Ids;
import dev.bothy.platform.telemetry.TelemetryNames;
import dev.bothy.platform.telemetry.TraceContext;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OtelJobTracerTest {
  @RegisterExtension static final OpenTelemetryExtension OTEL = OpenTelemetryExtension.create();

  @Test
  void a_job_s_work_runs_in_a_span_with_its_kind_attempt_and_id() throws Exception {
    OtelJobTracer tracer = new OtelJobTracer(OTEL.getOpenTelemetry());
    UUID id = Ids.newId();
    boolean[] ran = {false};

    tracer.traced(id, "sync.partition_maintenance", 2, () -> ran[0] = true);

    assertThat(ran[0]).isTrue();
    SpanData span = OTEL.getSpans().get(0);
    assertThat(span.getName()).isEqualTo("job sync.partition_maintenance");
    assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(span.getAttributes().get(AttributeKey.stringKey(TelemetryNames.JOB_KIND)))
        .isEqualTo("sync.partition_maintenance");
    assertThat(span.getAttributes().get(AttributeKey.longKey(TelemetryNames.JOB_ATTEMPT)))
        .isEqualTo(2L);
    assertThat(span.getAttributes().get(AttributeKey.stringKey(TelemetryNames.JOB_ID)))
        .isEqualTo(id.toString());
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void a_failing_work_marks_the_span_and_the_failure_goes_on_unchanged() {
    OtelJobTracer tracer = new OtelJobTracer(OTEL.getOpenTelemetry());
    IllegalStateException failure = new IllegalStateException("Sam's endpoint is down");

    assertThatThrownBy(
            () ->
                tracer.traced(
                    Ids.newId(),
                    "webhooks.deliver",
                    1,
                    () -> {
                      throw failure;
                    }))
        .isSameAs(failure);

    SpanData span = OTEL.getSpans().get(0);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getEvents()).extracting(e -> e.getName()).contains("exception");
    assertThat(span.hasEnded()).isTrue();
  }

  @Test
  void a_job_and_a_round_found_by_an_untraced_poll_are_recorded_as_roots() throws Exception {
    OtelJobTracer tracer = new OtelJobTracer(OTEL.getOpenTelemetry());

    TraceContext.untracedCall(
        () -> {
          tracer.traced(Ids.newId(), "webhooks.deliver", 1, () -> {});
          return tracer.round("webhooks", () -> 1);
        });

    assertThat(OTEL.getSpans())
        .extracting(SpanData::getName)
        .containsExactlyInAnyOrder("job webhooks.deliver", "consumer round webhooks");
    assertThat(OTEL.getSpans())
        .allSatisfy(s -> assertThat(s.getParentSpanContext().isValid()).isFalse());
  }

  @Test
  void a_consumer_round_runs_in_a_span_named_after_the_consumer() throws Exception {
    OtelJobTracer tracer = new OtelJobTracer(OTEL.getOpenTelemetry());
    assertThat(tracer.round("webhooks", () -> 7)).isEqualTo(7);
    assertThatThrownBy(
            () ->
                tracer.round(
                    "push",
                    () -> {
                      throw new IllegalStateException("Alex's round failed");
                    }))
        .hasMessage("Alex's round failed");

    SpanData ok = OTEL.getSpans().get(0);
    assertThat(ok.getName()).isEqualTo("consumer round webhooks");
    assertThat(ok.getAttributes().get(AttributeKey.stringKey(TelemetryNames.CONSUMER_NAME)))
        .isEqualTo("webhooks");
    assertThat(ok.getAttributes().size()).as("the name is the only attribute").isEqualTo(1);
    SpanData failed = OTEL.getSpans().get(1);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }
}
