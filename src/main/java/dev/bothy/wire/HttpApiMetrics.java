package dev.bothy.wire;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.api.ApiMetrics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The metrics of the HTTP API, in the Dropwizard registry (and so on {@code /prometheus}):
 *
 * <ul>
 *   <li>{@code bothy_api_request_seconds{bothy_route, bothy_status}}: requests by route template
 *       and status (summary; for a stream, the time to its headers);
 *   <li>{@code bothy_api_streams_open}: open event streams (gauge);
 *   <li>{@code bothy_api_streamed_events_total}: events written to streams.
 * </ul>
 */
final class HttpApiMetrics implements ApiMetrics {
  static final String REQUESTS = "bothy.api.request_seconds";
  static final String ROUTE = "bothy_route";
  static final String STATUS = "bothy_status";

  private final MetricRegistry registry;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter streamed;

  HttpApiMetrics(MetricRegistry registry) {
    this.registry = registry;
    registry.register("bothy.api.streams_open", (Gauge<Integer>) open::get);
    this.streamed = registry.counter("bothy.api.streamed_events");
  }

  @Override
  public void request(String route, int status, long nanos) {
    registry
        .timer(
            LabelledDropwizardExports.name(
                REQUESTS, ROUTE, route, STATUS, Integer.toString(status)))
        .update(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void streamOpened() {
    open.incrementAndGet();
  }

  @Override
  public void streamClosed() {
    open.decrementAndGet();
  }

  @Override
  public void streamed(int events) {
    if (events > 0) {
      streamed.inc(events);
    }
  }
}
