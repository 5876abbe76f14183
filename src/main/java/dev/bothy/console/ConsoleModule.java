package dev.bothy.console;

import dev.bothy.bus.DeadLetters;
import dev.bothy.bus.RelayView;
import dev.bothy.console.app.HistorySampler;
import dev.bothy.console.domain.History;
import dev.bothy.console.http.ConsoleComponents;
import dev.bothy.console.http.PageServlet;
import dev.bothy.console.http.SecurityHeaders;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.platform.telemetry.TraceContext;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.EventLog;
import dev.bothy.webhooks.WebhookSubscriptions;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wiring entry of the operator console: the JAX-RS resources and providers of its JSON API
 * (overview, history, jobs, bus dead letters, webhook subscriptions and their attempts) ({@code
 * /console/api/...}) and the servlet filter that puts the security headers on every {@code
 * /console} response. The assembly mounts both on the admin port, in every role.
 *
 * <pre>{@code
 * ConsoleModule console =
 *     new ConsoleModule(
 *         settings, sync.eventLog(), sync.consumers(), relay, jobs.admin(),
 *         busDispatch.deadLetters(), webhooks.subscriptions(), readings, clock);
 * resourceConfig.registerInstances(console.apiComponents().toArray());
 * admin.addFilter("console-headers", console.securityHeaders()).addMappingForUrlPatterns(...);
 * }</pre>
 */
public final class ConsoleModule {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleModule.class);

  /** Where the console lives on the admin port. */
  public static final String PATH = "/console";

  /** Where its JSON API lives on the admin port. */
  public static final String API_PATH = PATH + "/api";

  private final ConsoleSettings settings;
  private final EventLog eventLog;
  private final Consumers consumers;
  private final Optional<RelayView> relay;
  private final JobAdmin jobs;
  private final DeadLetters deadLetters;
  private final WebhookSubscriptions webhooks;
  private final ProcessReadings readings;
  private final Clock clock;
  private final History history;

  /**
   * Builds the module; it starts nothing.
   *
   * @param settings the {@code console} settings
   * @param eventLog the event log, for its head and oldest retained number
   * @param consumers the worker consumers, for their lag and pending age
   * @param relay the relay of this process, empty without {@code bus.nats.url}
   * @param jobs the operations of the {@code jobs} commands
   * @param deadLetters the operations of the {@code bus dead} commands
   * @param webhooks the webhook subscriptions and their attempt logs
   * @param readings the NATS durables' counts and the {@code event_seq} lock hold times of this
   *     process
   * @param clock the process's clock
   */
  public ConsoleModule(
      ConsoleSettings settings,
      EventLog eventLog,
      Consumers consumers,
      Optional<RelayView> relay,
      JobAdmin jobs,
      DeadLetters deadLetters,
      WebhookSubscriptions webhooks,
      ProcessReadings readings,
      Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.eventLog = Objects.requireNonNull(eventLog, "eventLog");
    this.consumers = Objects.requireNonNull(consumers, "consumers");
    this.relay = Objects.requireNonNull(relay, "relay");
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    this.webhooks = Objects.requireNonNull(webhooks, "webhooks");
    this.readings = Objects.requireNonNull(readings, "readings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.history =
        new History(History.capacity(settings.historyWindow(), settings.sampleInterval()));
  }

  /**
   * Starts the history loop with the process and stops it in the {@code http} stop phase: every
   * {@code console.sampleInterval} it reads the log's head, the consumers, the NATS durables'
   * counts and the relay's lag into the ring buffer. A failed read is retried at the next interval
   * and logged once per outage.
   *
   * @param lifecycle the process's lifecycle
   * @param stopBudget the most the stop waits for a running sample
   */
  public void start(Lifecycle lifecycle, java.time.Duration stopBudget) {
    HistorySampler sampler =
        new HistorySampler(eventLog, consumers, relay, jobs, readings, clock, history);
    ServiceLoop loop =
        ServiceLoop.named("bothy-console-history")
            // A sample is a background poll: never a trace (an idle process records no span).
            .around(it -> TraceContext.untracedCall(it::run))
            .every(settings.sampleInterval())
            .retryDelay(failures -> settings.sampleInterval())
            .log(LoopLog.of(LOG, "console history sample", ""))
            .onFatal(lifecycle::fail)
            .build(
                () -> {
                  sampler.sample();
                  return ServiceLoop.Next.WAIT;
                });
    lifecycle.onStart("console-history", loop::start);
    lifecycle.onStop(StopPhase.HTTP, "console-history", stopBudget, () -> loop.stop(stopBudget));
  }

  /**
   * Builds the resources, the token filter and the problem mapper of the JSON API, to register with
   * a Jersey application mounted at {@link #API_PATH}.
   *
   * @return the components
   */
  public List<Object> apiComponents() {
    return ConsoleComponents.build(
        settings,
        eventLog,
        consumers,
        relay,
        jobs,
        deadLetters,
        webhooks,
        readings,
        history,
        clock);
  }

  /**
   * Returns the servlet of the page and its files; map it to {@link #PATH} and {@link #PATH} {@code
   * /*} (the API's longer mapping wins for {@code /console/api/*}).
   *
   * @return the servlet
   */
  public Servlet page() {
    return new PageServlet();
  }

  /**
   * Returns the filter that sets the Content-Security-Policy and the other security headers; map it
   * to {@link #PATH} and everything below it.
   *
   * @return the filter
   */
  public Filter securityHeaders() {
    return new SecurityHeaders();
  }
}
