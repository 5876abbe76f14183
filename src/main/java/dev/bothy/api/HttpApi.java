package dev.bothy.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.adapters.postgres.JooqIdempotencyRepository;
import dev.bothy.api.app.AppendEvents;
import dev.bothy.api.app.IdempotencyCleanupJob;
import dev.bothy.api.http.ApiComponents;
import dev.bothy.api.http.OpenApiResource;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.PhaseHooks;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.PeriodicJob;
import dev.bothy.sync.Appender;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.LogTail;
import java.time.Duration;
import java.util.List;

/**
 * The HTTP API of one {@code api}/{@code all} process: the JAX-RS resources and providers to
 * register with Jersey, and the close of its event streams at shutdown.
 *
 * <pre>{@code
 * HttpApi api = new HttpApi(settings, maxPayloadBytes, uow, hooks, appender, log, types, tail,
 *     consumers, mapper, metrics, clock);
 * api.components().forEach(environment.jersey()::register);
 * }</pre>
 */
public final class HttpApi {
  private final ApiComponents components;

  /**
   * Builds the API and registers its audit phase hook {@code api.idempotency} (call it before the
   * hooks freeze).
   *
   * @param settings the {@code api} settings
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}, checked per event with a JSON pointer
   * @param unitOfWork the unit of work
   * @param hooks the phase hook registry
   * @param appender the event log's appender
   * @param log the event log
   * @param types the event type catalogue
   * @param tail the process's log tail
   * @param consumers the worker consumers, for their states
   * @param mapper the application's JSON mapper
   * @param metrics where requests and streams are reported
   * @param clock the clock
   */
  public HttpApi(
      ApiSettings settings,
      long maxPayloadBytes,
      UnitOfWork unitOfWork,
      PhaseHooks hooks,
      Appender appender,
      EventLog log,
      EventTypes types,
      LogTail tail,
      Consumers consumers,
      ObjectMapper mapper,
      ApiMetrics metrics,
      Clock clock) {
    AppendEvents appendEvents =
        new AppendEvents(
            unitOfWork,
            hooks,
            appender,
            new JooqIdempotencyRepository(),
            clock,
            settings.idempotencyRetention());
    this.components =
        ApiComponents.build(
            settings,
            maxPayloadBytes,
            appendEvents,
            log,
            types,
            tail,
            consumers,
            mapper,
            metrics,
            clock);
  }

  /**
   * Returns the resources and providers to register with Jersey.
   *
   * @return the instances
   */
  public List<Object> components() {
    return components.components();
  }

  /** Ends the open event streams and refuses new ones; for the start of the shutdown. */
  public void closeStreams() {
    components.streams().close();
  }

  /**
   * Renders the OpenAPI document of every route.
   *
   * @return the document, as {@code /openapi.json} serves it
   */
  public static String openApiDocument() {
    return OpenApiResource.render();
  }

  /**
   * The periodic cleaner of expired idempotency keys, {@code api.idempotency_cleanup}: every role
   * registers it, worker and all run it.
   *
   * @param unitOfWork the unit of work
   * @param clock the clock
   * @param retention {@code api.idempotencyRetention}
   * @param batchSize {@code jobs.cleanerBatchSize}
   * @return the job kind
   */
  public static JobKind<?> idempotencyCleanupKind(
      UnitOfWork unitOfWork, Clock clock, Duration retention, int batchSize) {
    return IdempotencyCleanupJob.kind(
        unitOfWork, new JooqIdempotencyRepository(), clock, retention, batchSize);
  }

  /**
   * The periodic job of the cleaner.
   *
   * @param interval {@code api.idempotencyCleanupInterval}
   * @return the periodic job
   */
  public static PeriodicJob idempotencyCleanupPeriodic(Duration interval) {
    return IdempotencyCleanupJob.periodic(interval);
  }
}
