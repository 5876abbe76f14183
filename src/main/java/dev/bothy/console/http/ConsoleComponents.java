package dev.bothy.console.http;

import dev.bothy.bus.DeadLetters;
import dev.bothy.bus.RelayView;
import dev.bothy.console.ConsoleSettings;
import dev.bothy.console.ProcessReadings;
import dev.bothy.console.domain.History;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.EventLog;
import dev.bothy.webhooks.WebhookSubscriptions;
import java.util.List;
import java.util.Optional;

/**
 * Builds the JAX-RS components of the console's API: its token filter, problem mapper and
 * resources.
 */
public final class ConsoleComponents {
  private ConsoleComponents() {}

  /**
   * Builds the components.
   *
   * @param settings the console's settings
   * @param eventLog the event log
   * @param consumers the worker consumers
   * @param relay the relay, empty without {@code bus.nats.url}
   * @param jobs the jobs admin
   * @param deadLetters the bus dead letters
   * @param webhooks the webhook subscriptions
   * @param readings the NATS durables' counts and the lock hold times of this process
   * @param history the samples of the charts
   * @param clock the process's clock
   * @return the filter, the mapper and the resources, to register with Jersey
   */
  public static List<Object> build(
      ConsoleSettings settings,
      EventLog eventLog,
      Consumers consumers,
      Optional<RelayView> relay,
      JobAdmin jobs,
      DeadLetters deadLetters,
      WebhookSubscriptions webhooks,
      ProcessReadings readings,
      History history,
      Clock clock) {
    return List.of(
        new ConsoleAuth(settings.tokens(), settings.readOnly()),
        new ConsoleProblemMapper(),
        new OverviewResource(
            eventLog, consumers, relay, readings, history, settings.readOnly(), clock),
        new HistoryResource(history, settings.sampleInterval(), settings.historyWindow()),
        new JobsResource(
            jobs,
            settings.defaultPageSize(),
            settings.maxPageSize(),
            settings.countCap(),
            settings.maxBulkJobs()),
        new DeadLettersResource(
            deadLetters, settings.defaultPageSize(), settings.maxPageSize(), settings.countCap()),
        new WebhooksResource(
            webhooks, settings.defaultPageSize(), settings.maxPageSize(), settings.countCap()));
  }
}
