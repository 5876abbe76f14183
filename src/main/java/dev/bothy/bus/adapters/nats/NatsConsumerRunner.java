package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusConsumerSettings;
import dev.bothy.bus.BusConsumerState;
import dev.bothy.bus.BusPullFailure;
import dev.bothy.bus.Streams;
import dev.bothy.bus.app.NatsDispatcher;
import dev.bothy.bus.domain.ConsumerFilters;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamStatusCheckedException;
import io.nats.client.Message;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DeliverPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bus consumer on NATS in one process (ADR 0024): its durable pull consumer {@code
 * <module>_<name>} on {@code EVENTS}, and a {@link ServiceLoop} {@code bothy-bus-<durable>} that
 * pulls small batches ({@code bus.consumers.fetchBatch}, waiting at most {@code
 * bus.consumers.fetchWait}) and hands each message to its {@link NatsDispatcher}, one after the
 * other. Any number of processes (or runners in one process) share one durable: the server hands
 * each message to one pull at a time, and the delivery rows keep a redelivered one from running a
 * handler twice. Every {@code bus.consumers.infoInterval} the loop samples the durable's counts for
 * the gauges. A failed pull (NATS away) is logged once and retried after {@code
 * bus.consumers.fetchWait} ({@link #pullFailure()} shows the failing stretch to the health check
 * {@code bus_consumers}); a durable found missing is declared again; an unexpected end of the
 * thread ends the process.
 *
 * <p>A bench or a tool runs one with a no-op handler like this:
 *
 * <pre>{@code
 * NatsConsumerRunner.ensure(jsm, consumer, serverVersion, settings);
 * NatsConsumerRunner runner = new NatsConsumerRunner(connection, consumer,
 *     new NatsDispatcher(consumer, registry, dispatch, KeepAlive.NONE, Notices.NONE),
 *     settings, Clock.system(), failure -> { throw new IllegalStateException(failure); });
 * runner.start(); ... runner.stop(Duration.ofSeconds(5));
 * }</pre>
 */
public final class NatsConsumerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(NatsConsumerRunner.class);

  private final Connection connection;
  private final BusConsumer consumer;
  private final NatsDispatcher dispatcher;
  private final BusConsumerSettings settings;
  private final ServiceLoop loop;
  private volatile ConsumerContext context;
  private volatile BusConsumerState state;
  private volatile BusPullFailure failing;
  private final Clock clock;
  private long sampledAt;

  /**
   * Creates the runner; nothing runs until {@link #start()}.
   *
   * @param connection the process's NATS connection
   * @param consumer the bus consumer
   * @param dispatcher its dispatcher
   * @param settings {@code bus.consumers.*}
   * @param clock the time of a failing stretch's start, for the health check
   * @param onFatal {@code Lifecycle::fail}
   */
  public NatsConsumerRunner(
      Connection connection,
      BusConsumer consumer,
      NatsDispatcher dispatcher,
      BusConsumerSettings settings,
      Clock clock,
      Consumer<Throwable> onFatal) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.connection = Objects.requireNonNull(connection, "connection");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.state = new BusConsumerState(consumer.durable(), 0, 0, 0);
    this.loop =
        ServiceLoop.named("bothy-bus-" + consumer.durable())
            // A pull that finds nothing is no trace; each handler's unit has its own spans.
            .around(it -> TraceContext.untracedCall(it::run))
            .every(settings.fetchWait())
            .log(LoopLog.of(LOG, "bus consumer pull", "bothy.bus.durable=" + consumer.durable()))
            .onFatal(onFatal)
            .build(this::pullTracked);
  }

  /**
   * The durable's configuration: explicit acks from the start of the stream, {@code ackWait},
   * {@code MaxDeliver} {@value VerdictRules#MAX_DELIVER}, {@code maxAckPending}, the filter of
   * {@link ConsumerFilters}, and no {@code backoff} list (it would override {@code ackWait} and
   * does not apply to naks).
   *
   * @param consumer the bus consumer
   * @param filters its filter for the connected server
   * @param settings {@code bus.consumers.*}
   * @return the configuration
   */
  public static ConsumerConfiguration configuration(
      BusConsumer consumer, ConsumerFilters filters, BusConsumerSettings settings) {
    ConsumerConfiguration.Builder b =
        ConsumerConfiguration.builder()
            .durable(consumer.durable())
            .description("bus consumer " + consumer.durable() + " of Bothy")
            .ackPolicy(AckPolicy.Explicit)
            // A new durable starts at the oldest message: nothing is skipped, and what another
            // transport already handled finds its delivery row (README, switching transports).
            .deliverPolicy(DeliverPolicy.All)
            .ackWait(settings.ackWait())
            .maxDeliver(VerdictRules.MAX_DELIVER)
            .maxAckPending(settings.maxAckPending());
    if (filters.subjects().size() == 1) {
      b.filterSubject(filters.subjects().get(0));
    } else {
      b.filterSubjects(filters.subjects());
    }
    return b.build();
  }

  /**
   * Creates the durable, or updates it to the declaration.
   *
   * @param jsm the management context
   * @param consumer the bus consumer
   * @param serverVersion the connected server's version
   * @param settings {@code bus.consumers.*}
   * @return the filter declared
   * @throws IOException when the server cannot be asked
   * @throws JetStreamApiException when the server refuses the durable (a change of a setting it
   *     cannot change on an existing durable, for example)
   */
  public static ConsumerFilters ensure(
      JetStreamManagement jsm,
      BusConsumer consumer,
      String serverVersion,
      BusConsumerSettings settings)
      throws IOException, JetStreamApiException {
    ConsumerFilters filters =
        ConsumerFilters.of(
            serverVersion,
            consumer.handlers().stream().map(h -> h.eventType().name()).toList(),
            Streams.EVENT_SUBJECTS,
            Streams::subjectOf);
    jsm.addOrUpdateConsumer(Streams.EVENTS, configuration(consumer, filters, settings));
    return filters;
  }

  /** Starts the loop. */
  public void start() {
    loop.start();
  }

  /**
   * Stops the loop: the running pull and its dispatch may end within {@code budget}; unanswered
   * messages of the pull come back after {@code ackWait}, into their delivery rows.
   *
   * @param budget what remains of {@code shutdown.totalTimeout}
   * @return true when the loop ended within the budget
   */
  public boolean stop(Duration budget) {
    return loop.stop(budget);
  }

  /**
   * Stops several runners at once, so their pulls end in parallel within one budget.
   *
   * @param runners the runners
   * @param budget what remains of {@code shutdown.totalTimeout}
   * @return true when every loop ended within the budget
   */
  public static boolean stopAll(java.util.Collection<NatsConsumerRunner> runners, Duration budget) {
    return ServiceLoop.stopAll(runners.stream().map(r -> r.loop).toList(), budget);
  }

  /**
   * Returns the durable's counts as last sampled.
   *
   * @return the state, zero before the first sample
   */
  public BusConsumerState state() {
    return state;
  }

  /**
   * Returns the bus consumer.
   *
   * @return the consumer
   */
  public BusConsumer consumer() {
    return consumer;
  }

  /**
   * Returns the failing stretch of this durable's pulls, if one is going on.
   *
   * @return the failure, empty once a pull succeeded
   */
  public java.util.Optional<BusPullFailure> pullFailure() {
    return java.util.Optional.ofNullable(failing);
  }

  private Next pullTracked() throws Exception {
    try {
      Next next = pull();
      failing = null;
      return next;
    } catch (InterruptedException e) {
      // The stop, not a failure of the durable.
      throw e;
    } catch (Exception e) {
      BusPullFailure was = failing;
      failing =
          new BusPullFailure(
              consumer.durable(), was == null ? clock.now() : was.since(), ErrorFields.type(e));
      throw e;
    }
  }

  private Next pull() throws Exception {
    ConsumerContext ctx = context;
    if (ctx == null) {
      ctx = contextDeclaringAgain();
      context = ctx;
    }
    FetchConsumer fetch;
    try {
      fetch =
          ctx.fetch(
              FetchConsumeOptions.builder()
                  .maxMessages(settings.fetchBatch())
                  .expiresIn(settings.fetchWait().toMillis())
                  .build());
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      context = null;
      throw e;
    }
    try {
      Message message = fetch.nextMessage();
      while (message != null) {
        dispatcher.handle(new JetStreamInbound(message));
        message = fetch.nextMessage();
      }
    } catch (JetStreamStatusCheckedException | RuntimeException e) {
      // A status of the server (the durable deleted, say): ask for a fresh context next time.
      context = null;
      throw e;
    } finally {
      // Not try-with-resources: close() may throw InterruptedException (-Xlint:try).
      fetch.close();
    }
    sample(ctx);
    return Next.AGAIN;
  }

  /**
   * Whether the server says the durable or its stream is gone. A pull of a durable that a server
   * back without its store no longer knows ends empty, without a status; only the durable's info
   * tells (D-NT-14).
   */
  private static boolean gone(JetStreamApiException e) {
    return e.getApiErrorCode() == NatsReplayRestart.CONSUMER_NOT_FOUND
        || e.getApiErrorCode() == NatsStreams.STREAM_NOT_FOUND;
  }

  /**
   * The durable's context; a durable deleted while this process runs (by an operator or a tool) is
   * declared again as at the start, or every pull would fail until a restart while events wait.
   * Like any new durable it starts at the stream's first message, and what was handled already is
   * acked as {@code duplicate} through its delivery row. A projection replay's restart deletes and
   * declares it the same way, so whichever declares first, the durable is the same.
   */
  private ConsumerContext contextDeclaringAgain() throws IOException, JetStreamApiException {
    try {
      return connection.getConsumerContext(Streams.EVENTS, consumer.durable());
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != NatsReplayRestart.CONSUMER_NOT_FOUND) {
        throw e;
      }
    }
    ensure(
        connection.jetStreamManagement(),
        consumer,
        connection.getServerInfo().getVersion(),
        settings);
    LOG.warn(
        "bus durable was missing, declared again: bothy.bus.durable={} stream={}",
        consumer.durable(),
        Streams.EVENTS);
    return connection.getConsumerContext(Streams.EVENTS, consumer.durable());
  }

  /**
   * Reads the durable's counts every {@code bus.consumers.infoInterval}; a durable or stream the
   * server no longer knows fails the pull, so the health check shows it and the next pull declares
   * the durable again once the stream is back.
   *
   * @throws JetStreamApiException when the durable or its stream is gone
   */
  private void sample(ConsumerContext ctx) throws JetStreamApiException {
    long now = System.nanoTime();
    if (sampledAt != 0 && now - sampledAt < settings.infoInterval().toNanos()) {
      return;
    }
    sampledAt = now;
    try {
      ConsumerInfo info = ctx.getConsumerInfo();
      state =
          new BusConsumerState(
              consumer.durable(),
              info.getNumPending(),
              info.getNumAckPending(),
              info.getRedelivered());
    } catch (JetStreamApiException e) {
      if (gone(e)) {
        context = null;
        // Asked again at the next pull, not one infoInterval later: the stretch ends with it.
        sampledAt = 0;
        throw e;
      }
      LOG.debug(
          "bus consumer info not read: bothy.bus.durable={} error.type={}",
          consumer.durable(),
          ErrorFields.type(e));
    } catch (IOException | RuntimeException e) {
      LOG.debug(
          "bus consumer info not read: bothy.bus.durable={} error.type={}",
          consumer.durable(),
          ErrorFields.type(e));
    }
  }
}
