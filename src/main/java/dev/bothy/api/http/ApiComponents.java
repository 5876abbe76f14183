package dev.bothy.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.ApiMetrics;
import dev.bothy.api.ApiSettings;
import dev.bothy.api.app.AppendEvents;
import dev.bothy.api.app.RecordPing;
import dev.bothy.kernel.Clock;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.LogTail;
import dev.bothy.system.Pings;
import dev.bothy.webhooks.WebhookSubscriptions;
import java.util.List;

/**
 * The JAX-RS resources and providers of the API, built once per process: what {@link
 * dev.bothy.api.ApiModule} hands to the assembly.
 *
 * @param components the instances to register with Jersey
 * @param streams the event streams, closed at shutdown
 */
public record ApiComponents(List<Object> components, EventStreams streams) {

  /**
   * Builds the components.
   *
   * @param settings the {@code api} settings
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}
   * @param appendEvents the append service
   * @param log the event log
   * @param types the event type catalogue
   * @param tail the process's log tail
   * @param consumers the worker consumers, for their states
   * @param webhooks the webhook subscriptions' verbs
   * @param recordPing the use case of {@code POST /v1/system/pings}
   * @param pings the pings' verbs, for {@code GET /v1/system/pings/{id}}
   * @param mapper the application's JSON mapper
   * @param metrics where requests and streams are reported
   * @param clock the clock of pending ages
   * @return the components
   */
  public static ApiComponents build(
      ApiSettings settings,
      long maxPayloadBytes,
      AppendEvents appendEvents,
      EventLog log,
      EventTypes types,
      LogTail tail,
      Consumers consumers,
      WebhookSubscriptions webhooks,
      RecordPing recordPing,
      Pings pings,
      ObjectMapper mapper,
      ApiMetrics metrics,
      Clock clock) {
    EventStreams streams =
        new EventStreams(
            tail,
            mapper,
            metrics,
            settings.streamHeartbeat(),
            settings.maxStreams(),
            settings.streamFrames());
    StrictJson strict =
        new StrictJson(
            mapper,
            settings.maxJsonDepth(),
            settings.maxJsonNameLength(),
            settings.maxRequestBytes());
    AppendRequestReader reader =
        new AppendRequestReader(
            strict,
            types,
            settings.maxRequestBytes(),
            settings.maxEventsPerRequest(),
            maxPayloadBytes);
    TokenFilter tokens = new TokenFilter(settings.tokens());
    return new ApiComponents(
        List.of(
            new ProblemMapper(mapper),
            tokens,
            new StrangerFilter(tokens),
            new NoSniffFilter(),
            new SingleQueryParameters(),
            new DeclaredLengthFilter(tokens, reader, settings.maxRequestBytes()),
            new MetricsFilter(metrics),
            new StreamFlushInterceptor(),
            new EventsResource(
                appendEvents,
                log,
                types,
                streams,
                reader,
                mapper,
                settings.maxPageSize(),
                settings.defaultPageSize(),
                Math.max(1, settings.streamRetryAfter().toSeconds())),
            new ConsumersResource(consumers, clock),
            new WebhooksResource(
                webhooks,
                reader,
                new WebhookRequestReader(strict),
                settings.maxPageSize(),
                settings.defaultPageSize()),
            new SystemResource(recordPing, pings, reader),
            new OpenApiResource()),
        streams);
  }

  /** Copies the list. */
  public ApiComponents {
    components = List.copyOf(components);
  }
}
