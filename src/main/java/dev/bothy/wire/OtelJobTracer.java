package dev.bothy.wire;

import dev.bothy.bus.RelayTracer;
import dev.bothy.platform.jobs.JobTracer;
import dev.bothy.platform.telemetry.TelemetryNames;
import dev.bothy.sync.RoundTracer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.UUID;

/**
 * The {@link JobTracer} of the running service: a span per job's work through the OpenTelemetry
 * API, named {@code job <kind>} with the kind, attempt and id as attributes; and a span per worker
 * consumer round ({@link #round}). Both are roots: the loops that find the work run untraced
 * ({@code TraceContext.untracedCall}), and the agent carries that context into the worker threads,
 * so a span with that parent would never be recorded. Without the OpenTelemetry agent the API is a
 * no-op and this costs next to nothing.
 */
final class OtelJobTracer implements JobTracer, RoundTracer, RelayTracer {
  private final Tracer tracer;

  OtelJobTracer(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer(TelemetryNames.SCOPE);
  }

  /**
   * Runs the handling of one worker consumer round that read events inside a span {@code consumer
   * round <name>} with the attribute {@code bothy.consumer.name}; the round's JDBC spans nest in
   * it.
   *
   * @param name the consumer
   * @param round the round
   * @param <T> its result
   * @return the round's result
   * @throws Exception what the round threw, after the span recorded it
   */
  @Override
  public <T> T round(String name, java.util.concurrent.Callable<T> round) throws Exception {
    Span span =
        tracer
            .spanBuilder(TelemetryNames.CONSUMER_ROUND_SPAN_PREFIX + " " + name)
            .setNoParent()
            .setSpanKind(SpanKind.INTERNAL)
            .setAttribute(TelemetryNames.CONSUMER_NAME, name)
            .startSpan();
    Scope scope = span.makeCurrent();
    try {
      return round.call();
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      scope.close();
      span.end();
    }
  }

  /**
   * Runs the publishing part of one relay round inside a span {@code bus relay round} with the
   * stream's name, the first event number and the number of events; the round's JDBC spans nest in
   * it.
   *
   * @param stream the stream
   * @param firstSeq the first event number published
   * @param events how many events
   * @param round the round
   * @param <T> its result
   * @return the round's result
   */
  @Override
  public <T> T round(
      String stream, long firstSeq, int events, java.util.function.Supplier<T> round) {
    Span span =
        tracer
            .spanBuilder(TelemetryNames.BUS_RELAY_ROUND_SPAN)
            .setNoParent()
            .setSpanKind(SpanKind.PRODUCER)
            .setAttribute(TelemetryNames.BUS_STREAM, stream)
            .setAttribute(TelemetryNames.EVENT_SEQ, firstSeq)
            .setAttribute(TelemetryNames.BUS_EVENTS, (long) events)
            .startSpan();
    Scope scope = span.makeCurrent();
    try {
      return round.get();
    } catch (RuntimeException | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      scope.close();
      span.end();
    }
  }

  @Override
  public void traced(UUID id, String kind, int attempt, Body body) throws Exception {
    Span span =
        tracer
            .spanBuilder(TelemetryNames.JOB_SPAN_PREFIX + " " + kind)
            .setNoParent()
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(TelemetryNames.JOB_KIND, kind)
            .setAttribute(TelemetryNames.JOB_ATTEMPT, (long) attempt)
            .setAttribute(TelemetryNames.JOB_ID, id.toString())
            .startSpan();
    // The span is current while the work runs, so the JDBC and HTTP spans of the agent nest in it.
    Scope scope = span.makeCurrent();
    try {
      body.run();
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      scope.close();
      span.end();
    }
  }
}
