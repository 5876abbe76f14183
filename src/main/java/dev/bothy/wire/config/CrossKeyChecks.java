package dev.bothy.wire.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.platform.jobs.RetentionSweep;
import dev.bothy.platform.jobs.domain.JobNames;
import dev.bothy.webhooks.app.DeliveryJobs;
import dev.bothy.webhooks.domain.Cidr;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.common.LoggingFactory;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rules that span configuration keys, in one place: later sections add theirs here.
 *
 * <p>Each message names the keys involved and never a value, so a password cannot leak into a start
 * failure.
 */
public final class CrossKeyChecks {
  private static final Set<String> NATS_SCHEMES = Set.of("nats", "tls", "ws", "wss");
  private static final int MAX_PORT = 65_535;

  private static final Set<String> LOOPBACK_HOSTS =
      Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  // Logback's levels, and false: YAML's reading of an unquoted OFF.
  private static final Set<String> LEVELS =
      Set.of("OFF", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL", "FALSE");
  private static final String LEVELS_RULE =
      "must be one of OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL";

  private CrossKeyChecks() {}

  /**
   * Checks a configuration.
   *
   * @param configuration the configuration whose single keys are already valid
   * @return one message per broken rule; empty when all hold
   */
  public static List<String> check(BothyConfiguration configuration) {
    List<String> problems = new ArrayList<>();
    if (configuration.getServerFactory() != null
        && !(configuration.getServerFactory()
            instanceof io.dropwizard.core.server.DefaultServerFactory)) {
      problems.add(
          "server.type must be default: the simple server serves the admin endpoints on the"
              + " application connector, and every role keeps them on a port of their own");
    }
    logging(configuration.getLoggingFactory(), problems);
    jobs(configuration.jobs(), problems);
    api(configuration.api(), problems);
    ConsoleConfig console = configuration.console();
    if (console != null && console.defaultPageSize() > console.maxPageSize()) {
      problems.add("console.defaultPageSize must not be larger than console.maxPageSize");
    }
    if (console != null
        && console.sampleInterval() != null
        && console.historyWindow() != null
        && console.historyWindow().toNanoseconds() <= console.sampleInterval().toNanoseconds()) {
      problems.add("console.historyWindow must be longer than console.sampleInterval");
    }
    webhooks(configuration.webhooks(), configuration.jobs(), problems);
    ConsumerConfig consumer = configuration.consumer();
    SyncConfig sync = configuration.sync();
    if (consumer != null
        && sync != null
        && consumer.pendingAlertAfter() != null
        && sync.eventRetention() != null
        && consumer.pendingAlertAfter().toNanoseconds() >= sync.eventRetention().toNanoseconds()) {
      problems.add(
          "consumer.pendingAlertAfter must be shorter than sync.eventRetention, or a stalled"
              + " consumer loses events before its alert fires");
    }
    bus(configuration.bus(), sync, problems);
    busJobs(configuration.bus(), configuration.jobs(), problems);
    ApiConfig api = configuration.api();
    if (api != null
        && sync != null
        && api.idempotencyRetention() != null
        && sync.eventRetention() != null
        && api.idempotencyRetention().toNanoseconds() >= sync.eventRetention().toNanoseconds()) {
      // A replay renders the first response from the numbers of its events in the log.
      problems.add(
          "api.idempotencyRetention must be shorter than sync.eventRetention, or a retry finds"
              + " its first response's events dropped from the log");
    }
    if (sync != null && sync.tailSubscriberBuffer() < sync.tailBatchSize()) {
      problems.add(
          "sync.tailSubscriberBuffer must be at least sync.tailBatchSize, or one page of the tail"
              + " overflows every subscriber's buffer and drops even the fast ones");
    }
    ShutdownConfig shutdown = configuration.shutdown();
    if (shutdown != null
        && shutdown.jobsTimeout() != null
        && shutdown.totalTimeout() != null
        && shutdown.jobsTimeout().toNanoseconds() >= shutdown.totalTimeout().toNanoseconds()) {
      problems.add(
          "shutdown.jobsTimeout must be shorter than shutdown.totalTimeout, which also covers"
              + " handing back the jobs still running");
    }
    DatabaseConfig db = configuration.database();
    if (db == null) {
      return problems;
    }
    db.url()
        .ifPresent(
            url -> {
              Optional<List<String>> hosts = hosts(url);
              if (hosts.isEmpty()) {
                problems.add(
                    "database.url is not a valid PostgreSQL JDBC URL"
                        + " (jdbc:postgresql://host:port/database)");
              } else if (db.password().isEmpty()
                  && hosts.get().stream().anyMatch(h -> !LOOPBACK_HOSTS.contains(h))) {
                problems.add("database.password is required when database.url names a remote host");
              }
            });
    if (db.lockTimeout() != null
        && db.statementTimeout() != null
        && db.lockTimeout().toNanoseconds() >= db.statementTimeout().toNanoseconds()) {
      problems.add(
          "database.lockTimeout must be shorter than database.statementTimeout, or lock waits"
              + " end as statement timeouts that are not retried");
    }
    if (db.txRetryBaseDelay() != null
        && db.txRetryMaxDelay() != null
        && db.txRetryBaseDelay().toNanoseconds() > db.txRetryMaxDelay().toNanoseconds()) {
      problems.add("database.txRetryBaseDelay must not exceed database.txRetryMaxDelay");
    }
    return problems;
  }

  /**
   * Dropwizard reads a level it does not know as INFO without a word, so a typo ({@code TRACEE})
   * would go unnoticed; YAML reads {@code OFF} unquoted as false, which Dropwizard takes as OFF.
   */
  private static void logging(LoggingFactory factory, List<String> problems) {
    if (!(factory instanceof DefaultLoggingFactory logging)) {
      return;
    }
    if (!knownLevel(logging.getLevel())) {
      problems.add("logging.level " + LEVELS_RULE);
    }
    for (Map.Entry<String, JsonNode> logger : logging.getLoggers().entrySet()) {
      JsonNode value = logger.getValue();
      JsonNode level = value != null && value.isObject() ? value.get("level") : value;
      if (level != null && !level.isNull() && !knownLevel(level.asText())) {
        problems.add("logging.loggers." + logger.getKey() + " " + LEVELS_RULE);
      }
    }
  }

  private static boolean knownLevel(String level) {
    return level != null && LEVELS.contains(level.toUpperCase(java.util.Locale.ROOT));
  }

  private static void busJobs(BusConfig bus, JobsConfig jobs, List<String> problems) {
    if (bus == null || bus.dispatch() == null || jobs == null) {
      return;
    }
    if (jobs.queues() != null && !jobs.queues().containsKey(DispatchJob.QUEUE)) {
      problems.add(
          "jobs.queues must list the queue bus, which the bus.dispatch jobs of bus consumers use");
    }
    if (bus.dispatch().jobTimeout() != null
        && jobs.rescueAfter() != null
        && bus.dispatch().jobTimeout().toNanoseconds() >= jobs.rescueAfter().toNanoseconds()) {
      problems.add(
          "bus.dispatch.jobTimeout must be shorter than jobs.rescueAfter, or the rescuer takes a"
              + " dispatch that is still running");
    }
  }

  private static void dispatch(BusConfig bus, SyncConfig sync, List<String> problems) {
    BusDispatchConfig dispatch = bus.dispatch();
    if (dispatch == null || dispatch.deliveryRetention() == null) {
      return;
    }
    long retention = dispatch.deliveryRetention().toNanoseconds();
    if (sync != null
        && sync.eventRetention() != null
        && retention < sync.eventRetention().toNanoseconds()) {
      problems.add(
          "bus.dispatch.deliveryRetention must be at least sync.eventRetention, or a delivery row"
              + " is deleted while its event can still be delivered and the handler runs twice");
    }
    BusStreamConfig stream = bus.nats().stream();
    if (bus.nats().url().isPresent()
        && stream != null
        && stream.maxAge() != null
        && retention < stream.maxAge().toNanoseconds()) {
      problems.add(
          "bus.dispatch.deliveryRetention must be at least bus.nats.stream.maxAge, or a delivery"
              + " row is deleted while the stream can still redeliver its event");
    }
  }

  private static void consumers(BusConsumersConfig consumers, List<String> problems) {
    if (consumers == null) {
      return;
    }
    if (consumers.keepAliveInterval() != null
        && consumers.ackWait() != null
        && consumers.keepAliveInterval().toNanoseconds() >= consumers.ackWait().toNanoseconds()) {
      problems.add(
          "bus.consumers.keepAliveInterval must be shorter than bus.consumers.ackWait, or a"
              + " long handler's message is delivered again while it runs");
    }
    if (consumers.fetchBatch() > consumers.maxAckPending()) {
      problems.add("bus.consumers.fetchBatch must not exceed bus.consumers.maxAckPending");
    }
  }

  private static void bus(BusConfig bus, SyncConfig sync, List<String> problems) {
    if (bus == null || bus.nats() == null) {
      return;
    }
    BusNatsConfig nats = bus.nats();
    if (nats.token().isPresent() && nats.credsFile().isPresent()) {
      problems.add("set at most one of bus.nats.token and bus.nats.credsFile");
    }
    if (nats.url().isEmpty() && (nats.token().isPresent() || nats.credsFile().isPresent())) {
      problems.add(
          "bus.nats.token or bus.nats.credsFile is set but bus.nats.url is not: set the URL, or"
              + " remove the credential");
    }
    nats.url().ifPresent(url -> natsUrl(url, problems));
    if (nats.reconnectWait() != null
        && nats.reconnectBackoffCap() != null
        && nats.reconnectWait().toNanoseconds() > nats.reconnectBackoffCap().toNanoseconds()) {
      problems.add("bus.nats.reconnectWait must not exceed bus.nats.reconnectBackoffCap");
    }
    BusStreamConfig stream = nats.stream();
    if (stream != null
        && stream.maxAge() != null
        && stream.duplicateWindow() != null
        && stream.duplicateWindow().toNanoseconds() > stream.maxAge().toNanoseconds()) {
      problems.add(
          "bus.nats.stream.duplicateWindow must not be longer than bus.nats.stream.maxAge"
              + " (JetStream refuses such a stream)");
    }
    if (nats.url().isPresent()
        && stream != null
        && sync != null
        && stream.maxAge() != null
        && sync.eventRetention() != null
        && stream.maxAge().toNanoseconds() < sync.eventRetention().toNanoseconds()) {
      problems.add(
          "bus.nats.stream.maxAge must be at least sync.eventRetention, or the stream drops"
              + " events the log still holds and a republish finds them missing");
    }
    dispatch(bus, sync, problems);
    consumers(bus.consumers(), problems);
    BusRelayConfig relay = bus.relay();
    if (relay == null) {
      return;
    }
    if (relay.window() > relay.batchSize()) {
      problems.add("bus.relay.window must not exceed bus.relay.batchSize");
    }
    if (relay.leaseTimeout() != null
        && relay.pollInterval() != null
        && relay.publishAckTimeout() != null
        && relay.leaseTimeout().toNanoseconds()
            < 2 * relay.pollInterval().toNanoseconds()
                + relay.publishAckTimeout().toNanoseconds()) {
      problems.add(
          "bus.relay.leaseTimeout must be at least twice bus.relay.pollInterval plus"
              + " bus.relay.publishAckTimeout, or a working relay loses its lease between two"
              + " heartbeats");
    }
    if (stream != null
        && stream.duplicateWindow() != null
        && relay.publishAckTimeout() != null
        && relay.publishAckTimeout().toNanoseconds() >= stream.duplicateWindow().toNanoseconds()) {
      problems.add(
          "bus.relay.publishAckTimeout must be shorter than bus.nats.stream.duplicateWindow, or"
              + " a republish after a lost ack stores a second copy");
    }
  }

  /**
   * Checks {@code bus.nats.url}: one or more {@code nats://}, {@code tls://}, {@code ws://} or
   * {@code wss://} URLs with a host, and no user information, which would put a credential in the
   * URL. The messages never show the URL.
   */
  private static void natsUrl(String url, List<String> problems) {
    for (String server : url.split(",", -1)) {
      URI uri;
      try {
        uri = new URI(server.trim());
      } catch (URISyntaxException e) {
        problems.add(
            "bus.nats.url is not a NATS URL (nats://host:port, several separated by commas)");
        return;
      }
      if (uri.getScheme() == null
          || !NATS_SCHEMES.contains(uri.getScheme().toLowerCase(Locale.ROOT))
          || uri.getHost() == null) {
        problems.add(
            "bus.nats.url is not a NATS URL (nats://host:port, several separated by commas)");
        return;
      }
      if (uri.getRawUserInfo() != null) {
        problems.add(
            "bus.nats.url must not hold credentials: use bus.nats.token or bus.nats.credsFile");
        return;
      }
      // java.net.URI reads any run of digits as the port (-1 for none: the client's 4222).
      if (uri.getPort() == 0 || uri.getPort() > MAX_PORT) {
        problems.add("bus.nats.url has a port outside 1 to 65535");
        return;
      }
    }
  }

  private static void jobs(JobsConfig jobs, List<String> problems) {
    if (jobs == null) {
      return;
    }
    if (jobs.queues() != null && !jobs.queues().containsKey(RetentionSweep.QUEUE)) {
      problems.add(
          "jobs.queues must list the queue maintenance, which the retention and partition"
              + " maintenance jobs use; the map replaces the defaults, so list default,"
              + " maintenance, webhooks and bus with the values you want");
    }
    if (jobs.queues() != null) {
      jobs.queues()
          .forEach(
              (queue, workers) -> {
                if (!JobNames.validQueue(queue)) {
                  problems.add(
                      "jobs.queues: '"
                          + queue
                          + "' is not a queue name (a lower-case word with underscores)");
                }
                if (workers == null || workers < 1 || workers > JobsConfig.MAX_QUEUE_WORKERS) {
                  problems.add(
                      "jobs.queues."
                          + queue
                          + " must be between 1 and "
                          + JobsConfig.MAX_QUEUE_WORKERS
                          + " workers");
                }
              });
    }
    if (jobs.retryBaseDelay() != null
        && jobs.retryMaxDelay() != null
        && jobs.retryBaseDelay().toNanoseconds() > jobs.retryMaxDelay().toNanoseconds()) {
      problems.add("jobs.retryBaseDelay must not exceed jobs.retryMaxDelay");
    }
    if (jobs.defaultTimeout() != null
        && jobs.rescueAfter() != null
        && jobs.defaultTimeout().toNanoseconds() >= jobs.rescueAfter().toNanoseconds()) {
      problems.add(
          "jobs.defaultTimeout must be shorter than jobs.rescueAfter, or the rescuer takes back"
              + " jobs that still run");
    }
  }

  /**
   * Returns the hosts of a PostgreSQL JDBC URL, lower case and without ports; a URL without a host
   * part ({@code jdbc:postgresql:name}) connects to the loopback.
   *
   * @param jdbcUrl the URL
   * @return the hosts, or empty when the URL cannot be parsed
   */
  static Optional<List<String>> hosts(String jdbcUrl) {
    String prefix = "jdbc:postgresql:";
    if (!jdbcUrl.startsWith(prefix)) {
      return Optional.empty();
    }
    String rest = jdbcUrl.substring(prefix.length());
    if (!rest.startsWith("//")) {
      return rest.isEmpty() ? Optional.empty() : Optional.of(List.of("localhost"));
    }
    String authority = rest.substring(2).split("[/?]", 2)[0];
    if (authority.isEmpty()) {
      return Optional.of(List.of("localhost"));
    }
    List<String> hosts = new ArrayList<>();
    for (String hostPort : authority.split(",")) {
      String host;
      if (hostPort.startsWith("[")) {
        int end = hostPort.indexOf(']');
        if (end < 0) {
          return Optional.empty();
        }
        host = hostPort.substring(0, end + 1);
      } else {
        host = hostPort.split(":", 2)[0];
      }
      if (host.isBlank()) {
        return Optional.empty();
      }
      hosts.add(host.toLowerCase(Locale.ROOT));
    }
    return Optional.of(List.copyOf(hosts));
  }

  private static void api(ApiConfig api, List<String> problems) {
    if (api == null) {
      return;
    }
    if (api.defaultPageSize() > api.maxPageSize()) {
      problems.add("api.defaultPageSize must not be larger than api.maxPageSize");
    }
    if (api.tokens() == null) {
      return;
    }
    Set<String> names = new java.util.HashSet<>();
    Set<String> hashes = new java.util.HashSet<>();
    for (int i = 0; i < api.tokens().size(); i++) {
      TokenConfig token = api.tokens().get(i);
      if (token == null) {
        continue;
      }
      if (token.name() != null && !names.add(token.name())) {
        problems.add("api.tokens[" + i + "].name is taken by an earlier token");
      }
      if (token.sha256() != null && !hashes.add(token.sha256())) {
        problems.add("api.tokens[" + i + "].sha256 is the hash of an earlier token");
      }
    }
  }

  private static void webhooks(WebhooksConfig webhooks, JobsConfig jobs, List<String> problems) {
    if (webhooks == null) {
      return;
    }
    if (webhooks.allowedNetworks() != null) {
      for (String cidr : webhooks.allowedNetworks()) {
        try {
          Cidr.parse(cidr);
        } catch (RuntimeException e) {
          problems.add("webhooks.allowedNetworks must hold CIDR blocks such as 10.0.0.0/8");
          break;
        }
      }
    }
    if (webhooks.defaultRateLimit() > webhooks.maxRateLimit()) {
      problems.add("webhooks.defaultRateLimit must not exceed webhooks.maxRateLimit");
    }
    if (webhooks.maxConnectionsPerTarget() > webhooks.maxConnections()) {
      problems.add("webhooks.maxConnectionsPerTarget must not exceed webhooks.maxConnections");
    }
    if (webhooks.connectionWait() != null
        && webhooks.requestTimeout() != null
        && webhooks.connectionWait().toNanoseconds() >= webhooks.requestTimeout().toNanoseconds()) {
      problems.add(
          "webhooks.connectionWait must be shorter than webhooks.requestTimeout, or a delivery"
              + " that waited for a connection has no time left to send");
    }
    if (webhooks.retryAfterCap() != null
        && webhooks.disableAfter() != null
        && webhooks.retryAfterCap().toNanoseconds() >= webhooks.disableAfter().toNanoseconds()) {
      problems.add(
          "webhooks.retryAfterCap must be shorter than webhooks.disableAfter, or one honoured"
              + " Retry-After outlasts the failure streak that disables a subscription");
    }
    if (jobs == null) {
      return;
    }
    if (jobs.queues() != null && !jobs.queues().containsKey(DeliveryJobs.QUEUE)) {
      problems.add(
          "jobs.queues must list the queue webhooks, which the delivery jobs of outgoing webhooks"
              + " use");
    }
    if (webhooks.requestTimeout() != null
        && webhooks.jobTimeoutMargin() != null
        && jobs.rescueAfter() != null
        && webhooks.requestTimeout().toNanoseconds() + webhooks.jobTimeoutMargin().toNanoseconds()
            >= jobs.rescueAfter().toNanoseconds()) {
      problems.add(
          "webhooks.requestTimeout plus webhooks.jobTimeoutMargin must be shorter than"
              + " jobs.rescueAfter, or the rescuer takes a delivery that is still running");
    }
  }
}
