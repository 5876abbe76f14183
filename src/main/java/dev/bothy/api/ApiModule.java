package dev.bothy.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.adapters.postgres.JooqIdempotencyRepository;
import dev.bothy.api.app.AppendEvents;
import dev.bothy.api.app.IdempotencyCleanupJob;
import dev.bothy.api.app.RecordPing;
import dev.bothy.api.http.ApiComponents;
import dev.bothy.api.http.Json;
import dev.bothy.api.http.OpenApiResource;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobsModule;
import dev.bothy.sync.Event;
import dev.bothy.sync.LogTail;
import dev.bothy.sync.SyncModule;
import dev.bothy.system.Pings;
import dev.bothy.webhooks.WebhookSubscriptions;
import java.util.List;
import java.util.Objects;

/**
 * The wiring entry of the HTTP API: in every role the cleaner of expired idempotency keys ({@code
 * api.idempotency_cleanup}, worked by {@code worker} and {@code all}); in {@code api} and {@code
 * all} the JAX-RS resources and providers to register with Jersey, and the close of the event
 * streams at shutdown.
 *
 * <pre>{@code
 * ApiModule api = new ApiModule(settings, unitOfWork, jobs, clock);
 * api.serve(sync, tail, mapper, metrics).forEach(environment.jersey()::register);
 * }</pre>
 */
public final class ApiModule {
  private final ApiSettings settings;
  private final UnitOfWork unitOfWork;
  private final Clock clock;
  private volatile ApiComponents components;

  /**
   * Builds the module and registers the cleaner's job kind and periodic job.
   *
   * @param settings the {@code api} settings
   * @param unitOfWork the unit of work
   * @param jobs the job module
   * @param clock the process's clock
   */
  public ApiModule(ApiSettings settings, UnitOfWork unitOfWork, JobsModule jobs, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.clock = Objects.requireNonNull(clock, "clock");
    jobs.register(
        IdempotencyCleanupJob.kind(
            unitOfWork,
            new JooqIdempotencyRepository(),
            clock,
            settings.idempotencyRetention(),
            settings.cleanerBatchSize()));
    jobs.registerPeriodic(IdempotencyCleanupJob.periodic(settings.idempotencyCleanupInterval()));
  }

  /**
   * Builds the HTTP routes of {@code api} and {@code all}. The API registers no phase hook: the
   * idempotency key of an append is written in the unit's work phase.
   *
   * @param sync the event log module
   * @param tail the process's log tail
   * @param webhooks the webhook subscriptions' verbs, for {@code /v1/webhooks/subscriptions}
   * @param pings the pings of flow 00, for {@code /v1/system/pings}
   * @param mapper the application's JSON mapper
   * @param metrics where requests and streams are reported
   * @return the resources and providers to register with Jersey
   */
  public List<Object> serve(
      SyncModule sync,
      LogTail tail,
      WebhookSubscriptions webhooks,
      Pings pings,
      ObjectMapper mapper,
      ApiMetrics metrics) {
    AppendEvents appendEvents =
        new AppendEvents(
            unitOfWork,
            sync.appender(),
            sync.eventLog(),
            new JooqIdempotencyRepository(),
            clock,
            settings.idempotencyRetention());
    ApiComponents built =
        ApiComponents.build(
            settings,
            settings.maxPayloadBytes(),
            appendEvents,
            sync.eventLog(),
            sync.eventTypes(),
            tail,
            sync.consumers(),
            webhooks,
            new RecordPing(
                unitOfWork,
                pings,
                new JooqIdempotencyRepository(),
                clock,
                settings.idempotencyRetention()),
            pings,
            mapper,
            metrics,
            clock);
    components = built;
    return built.components();
  }

  /** Ends the open event streams and refuses new ones; for the start of the shutdown. */
  public void closeStreams() {
    ApiComponents served = components;
    if (served != null) {
      served.streams().close();
    }
  }

  /**
   * Renders an event as the API shows it in {@code GET /v1/events}: the body of a webhook delivery,
   * so receivers parse one format.
   *
   * @param mapper the application's JSON mapper
   * @param event the event
   * @return its JSON, UTF-8
   */
  public static byte[] renderEvent(ObjectMapper mapper, Event event) {
    try {
      return mapper.writeValueAsBytes(Json.EventOut.of(event));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an event is plain data", e);
    }
  }

  /**
   * Renders the OpenAPI document of every route.
   *
   * @return the document, as {@code /openapi.json} serves it
   */
  public static String openApiDocument() {
    return OpenApiResource.render();
  }
}
