package dev.bothy.wire;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobError;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.JobView;
import dev.bothy.platform.jobs.runtime.JobAdminService;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.Pools;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.wire.config.BothyConfiguration;
import dev.bothy.wire.config.DatabaseConfig;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.ConsoleAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * The operator commands of the job runtime: {@code jobs list [--state S] [--kind K] [--limit N]},
 * {@code jobs show ID}, {@code jobs retry ID} and {@code jobs cancel ID}, each with an optional
 * configuration file and {@code --json} for scripts.
 *
 * <p>With {@code database.url} set they connect to that database. In the embedded default they
 * connect to the embedded server another running Bothy process holds (its port is {@code
 * database.embedded.port}), or start it themselves when nothing runs. Bad input (an id that is not
 * a UUID, an unknown id, a job in the wrong state) prints one line naming the problem on standard
 * error and exits 1.
 */
final class JobsCommand extends ConfiguredCommand<BothyConfiguration> {
  static final String ACTION = "action";
  static final int DEFAULT_LIST_LIMIT = 50;

  JobsCommand() {
    super("jobs", "Lists, shows, retries and cancels background jobs");
  }

  @Override
  public void configure(Subparser subparser) {
    // Dropwizard shows a command's description on its own help only; this lists it on -h too.
    subparser.help(getDescription());
    Subparsers actions = subparser.addSubparsers().dest(ACTION);
    Subparser list =
        actions.addParser("list").help("lists jobs, newest first").setDefault(ACTION, "list");
    addFileArgument(list);
    list.addArgument("--state")
        .help(
            "only jobs in this state (available, scheduled, running, retryable, completed,"
                + " discarded, cancelled)");
    list.addArgument("--kind")
        .help("only jobs of this kind, for example sync.partition_maintenance");
    list.addArgument("--limit")
        .type(Integer.class)
        .setDefault(DEFAULT_LIST_LIMIT)
        .help("at most this many jobs (default " + DEFAULT_LIST_LIMIT + ")");
    json(list);
    for (String verb : List.of("show", "retry", "cancel")) {
      Subparser p =
          actions
              .addParser(verb)
              .help(
                  switch (verb) {
                    case "show" -> "shows one job with its error history";
                    case "retry" ->
                        "makes a discarded, retryable, scheduled or cancelled job"
                            + " available now";
                    default -> "cancels a job that has not finished";
                  })
              .setDefault(ACTION, verb);
      addFileArgument(p);
      p.addArgument("id").help("the job's id (a UUID)");
      json(p);
    }
  }

  private static void json(Subparser p) {
    p.addArgument("--json").action(Arguments.storeTrue()).help("print JSON instead of text");
  }

  @Override
  protected void run(
      Bootstrap<BothyConfiguration> bootstrap, Namespace namespace, BothyConfiguration config)
      throws Exception {
    quietLogging(bootstrap, config);
    PrintStream out = System.out;
    String action = namespace.getString(ACTION);
    // Parse the input before touching the database: bad input costs no connection.
    Optional<UUID> id =
        Optional.ofNullable(namespace.getString("id"))
            .map(text -> CommandIds.parse(text, "a job id", "jobs " + action + " [file] id"));
    Optional<JobState> state =
        Optional.ofNullable(namespace.getString("state")).map(JobState::fromCode);
    HikariDataSource pool = open(config);
    try {
      PgUnitOfWork unitOfWork =
          new PgUnitOfWork(
              pool,
              config.database().txSettings(),
              new dev.bothy.platform.pg.HookRegistry(),
              Sleeper.system(),
              ThreadLocalRandom.current());
      JobAdmin admin = new JobAdminService(unitOfWork, Clock.system());
      boolean json = Boolean.TRUE.equals(namespace.getBoolean("json"));
      switch (action) {
        case "list" -> {
          Integer limit = namespace.getInt("limit");
          List<JobView> jobs =
              admin.list(state, Optional.ofNullable(namespace.getString("kind")), limit);
          out.print(json ? toJson(jobs) : table(jobs));
        }
        case "show" -> out.print(render(admin.show(id.orElseThrow()), json));
        case "retry" -> out.print(render(admin.retry(id.orElseThrow()), json));
        case "cancel" -> out.print(render(admin.cancel(id.orElseThrow()), json));
        default -> throw new IllegalArgumentException("unknown jobs action " + action);
      }
      out.flush();
    } finally {
      close(pool);
    }
  }

  /**
   * Closes a pool from {@link #open}, and the embedded PostgreSQL it started, if any: left running,
   * the process would wait for the shutdown hook's timeout before it exits.
   *
   * @param pool the pool
   */
  static void close(HikariDataSource pool) {
    if (pool instanceof ManagedHikariDataSource managed) {
      managed.stop();
    } else {
      pool.close();
    }
  }

  /**
   * Standard output carries the table or the JSON alone: logs go to standard error, warnings and
   * errors only.
   */
  static void quietLogging(Bootstrap<BothyConfiguration> bootstrap, BothyConfiguration config) {
    logToStandardError(bootstrap, config, Optional.of("WARN"));
  }

  /**
   * Sends the console's log lines to standard error, so standard output carries a command's answer
   * alone (a {@code db dump} redirected to a file is XML and nothing else); jOOQ's banner stays
   * out.
   *
   * @param bootstrap the command's bootstrap
   * @param config the configuration, whose logging is configured again
   * @param level the root level to set, or empty to keep the configured one
   */
  static void logToStandardError(
      Bootstrap<BothyConfiguration> bootstrap, BothyConfiguration config, Optional<String> level) {
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    if (config.getLoggingFactory() instanceof DefaultLoggingFactory logging) {
      level.ifPresent(logging::setLevel);
      for (AppenderFactory<ILoggingEvent> appender : logging.getAppenders()) {
        if (appender instanceof ConsoleAppenderFactory<ILoggingEvent> console) {
          console.setTarget(ConsoleAppenderFactory.ConsoleStream.STDERR);
        }
      }
      logging.configure(bootstrap.getMetricRegistry(), bootstrap.getApplication().getName());
    }
  }

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable e) {
    cli.getStdErr()
        .println(
            "jobs "
                + namespace.getString(ACTION)
                + ": "
                + CommandErrors.unsetVariable(e).orElse(e.getMessage()));
  }

  static HikariDataSource open(BothyConfiguration config) throws Exception {
    DatabaseConfig db = config.database();
    if (db.url().isEmpty()
        && EmbeddedPostgresServer.inUse(Path.of(db.embedded().dataDirectory()))) {
      HikariConfig hikari = new HikariConfig();
      Path data = Path.of(db.embedded().dataDirectory());
      // With database.embedded.port 0 the running owner picked a free port: read it.
      int port = EmbeddedPostgresServer.runningPort(data).orElse(db.embedded().port());
      hikari.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
      hikari.setUsername(db.user());
      // The owner gave database.user the password it keeps in the data directory (D-SEC-2).
      EmbeddedPostgresServer.readPassword(data).ifPresent(hikari::setPassword);
      hikari.setMaximumPoolSize(1);
      hikari.setPoolName("bothy-jobs-command");
      hikari.setConnectionTimeout(db.connectionTimeout().toMilliseconds());
      hikari.addDataSourceProperty(Pools.LOG_SERVER_ERROR_DETAIL, "false");
      try {
        return new HikariDataSource(hikari);
      } catch (HikariPool.PoolInitializationException e) {
        throw BothyException.unavailable(
            "cannot connect as "
                + db.user()
                + " to the embedded PostgreSQL that a running process holds on port "
                + port
                + " (check database.user, database.embedded.dataDirectory, database.embedded.port;"
                + " the password is the data directory's bothy_password): "
                + HikariDataSourceFactory.rootMessage(e),
            e);
      }
    }
    return (HikariDataSource)
        new HikariDataSourceFactory(
                db,
                HikariDataSourceFactory.Purpose.RUNTIME,
                "bothy-jobs-command",
                null,
                config.shutdown().totalTimeout().toJavaDuration())
            .build(new com.codahale.metrics.MetricRegistry(), "bothy-jobs-command");
  }

  private static String render(JobView job, boolean json) throws Exception {
    if (json) {
      return toJson(job);
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"id", job.id().toString()});
    rows.add(new String[] {"kind", job.kind()});
    rows.add(new String[] {"queue", job.queue()});
    rows.add(new String[] {"state", job.state().code()});
    rows.add(new String[] {"attempt", job.attempt() + " of " + job.maxAttempts()});
    rows.add(new String[] {"priority", Integer.toString(job.priority())});
    rows.add(new String[] {"args", job.args()});
    rows.add(new String[] {"created_at", job.createdAt().toString()});
    rows.add(new String[] {"scheduled_at", job.scheduledAt().toString()});
    rows.add(new String[] {"attempted_at", text(job.attemptedAt())});
    rows.add(new String[] {"attempted_by", job.attemptedBy().orElse("-")});
    rows.add(new String[] {"finalized_at", text(job.finalizedAt())});
    rows.add(new String[] {"unique_key", job.uniqueKey().orElse("-")});
    StringBuilder b = new StringBuilder(align(rows, false));
    if (!job.errors().isEmpty()) {
      b.append("\nerrors:\n");
      List<String[]> errors = new ArrayList<>();
      errors.add(new String[] {"AT", "ATTEMPT", "KIND", "ERROR", "MESSAGE"});
      for (JobError e : job.errors()) {
        errors.add(
            new String[] {
              e.at().toString(),
              Integer.toString(e.attempt()),
              e.kind(),
              e.error().isEmpty() ? "-" : e.error(),
              e.message()
            });
      }
      b.append(align(errors, true));
    }
    return b.toString();
  }

  private static String text(Optional<Instant> at) {
    return at.map(Instant::toString).orElse("-");
  }

  static String table(List<JobView> jobs) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "KIND", "QUEUE", "STATE", "ATTEMPT", "SCHEDULED_AT", "ERRORS"});
    for (JobView j : jobs) {
      rows.add(
          new String[] {
            j.id().toString(),
            j.kind(),
            j.queue(),
            j.state().code(),
            j.attempt() + "/" + j.maxAttempts(),
            j.scheduledAt().toString(),
            Integer.toString(j.errors().size())
          });
    }
    return align(rows, true);
  }

  /** Pads every column but the last to its widest cell, two spaces apart. */
  static String align(List<String[]> rows, boolean header) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(row[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 2));
        }
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private static String toJson(List<JobView> jobs) throws Exception {
    List<Map<String, Object>> list = new ArrayList<>();
    for (JobView j : jobs) {
      list.add(jsonObject(j));
    }
    return JSON.writeValueAsString(list) + "\n";
  }

  private static String toJson(JobView job) throws Exception {
    return JSON.writeValueAsString(jsonObject(job)) + "\n";
  }

  /** The job with the column names of the jobs table, times in ISO 8601, args as JSON. */
  private static Map<String, Object> jsonObject(JobView j) throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", j.id().toString());
    m.put("kind", j.kind());
    m.put("queue", j.queue());
    m.put("state", j.state().code());
    m.put("attempt", j.attempt());
    m.put("max_attempts", j.maxAttempts());
    m.put("priority", j.priority());
    m.put("args", JSON.readTree(j.args()));
    m.put("created_at", j.createdAt().toString());
    m.put("scheduled_at", j.scheduledAt().toString());
    m.put("attempted_at", j.attemptedAt().map(Instant::toString).orElse(null));
    m.put("attempted_by", j.attemptedBy().orElse(null));
    m.put("finalized_at", j.finalizedAt().map(Instant::toString).orElse(null));
    m.put("unique_key", j.uniqueKey().orElse(null));
    List<Map<String, Object>> errors = new ArrayList<>();
    for (JobError e : j.errors()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("at", e.at().toString());
      entry.put("attempt", e.attempt());
      entry.put("kind", e.kind());
      entry.put("error", e.error());
      entry.put("message", e.message());
      errors.add(entry);
    }
    m.put("errors", errors);
    return m;
  }
}
