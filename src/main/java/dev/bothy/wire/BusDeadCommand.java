package dev.bothy.wire;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetters;
import dev.bothy.bus.adapters.postgres.JooqDeadLetterRepository;
import dev.bothy.bus.app.DeadLetterService;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.jackson.Jackson;
import java.io.PrintStream;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * The dead letter verbs of the {@code bus} command: {@code bus dead list [--all] [--limit N]},
 * {@code bus dead show ID} and {@code bus dead replay ID}, each with an optional configuration
 * file. They need no NATS: dead letters live in {@code bus_dead_letters} on both transports, and a
 * replay inserts a {@code bus.dispatch} job that a worker process runs. Bad input (an id that is
 * not a UUID, an unknown id, a dead letter already replayed) prints one line on standard error and
 * exits 1.
 */
final class BusDeadCommand {
  static final String VERB = "dead_verb";
  static final int DEFAULT_LIST_LIMIT = 50;

  private BusDeadCommand() {}

  /**
   * Adds {@code dead list|show|replay} to the {@code bus} command's actions.
   *
   * @param actions the {@code bus} command's subparsers
   * @param addFileArgument adds the optional configuration file argument to a parser
   */
  static void configure(
      Subparsers actions, java.util.function.Consumer<Subparser> addFileArgument) {
    Subparser dead =
        actions
            .addParser("dead")
            .help("lists, shows and replays the dead letters of bus consumers")
            .description(
                "Lists, shows and replays the dead letters of bus consumers: deliveries whose"
                    + " handler failed for good (an error that is not retryable, or the last"
                    + " retryable one). On NATS each is also announced on bothy.dead.<durable>.")
            .setDefault(BusCommand.ACTION, "dead");
    Subparsers verbs = dead.addSubparsers().dest(VERB);
    Subparser list =
        verbs
            .addParser("list")
            .help("lists the dead letters waiting for an operator, newest first")
            .description("Lists the dead letters waiting for an operator, newest first.")
            .setDefault(VERB, "list");
    addFileArgument.accept(list);
    list.addArgument("--all")
        .action(Arguments.storeTrue())
        .help("also the dead letters already replayed");
    list.addArgument("--limit")
        .type(Integer.class)
        .setDefault(DEFAULT_LIST_LIMIT)
        .help("at most this many (default " + DEFAULT_LIST_LIMIT + ")");
    for (String verb : List.of("show", "replay")) {
      String help =
          verb.equals("show")
              ? "shows one dead letter"
              : "runs the handler again for the dead letter's event, through the same dedupe rules";
      Subparser p =
          verbs
              .addParser(verb)
              .help(help)
              .description(Character.toUpperCase(help.charAt(0)) + help.substring(1) + ".")
              .setDefault(VERB, verb);
      addFileArgument.accept(p);
      p.addArgument("id").help("the dead letter's id (a UUID)");
    }
  }

  /**
   * Runs a verb.
   *
   * @param namespace the parsed arguments
   * @param config the configuration
   * @param out where the answer is printed
   * @throws Exception any failure; the command prints its message and exits 1
   */
  static void run(Namespace namespace, BothyConfiguration config, PrintStream out)
      throws Exception {
    String verb = namespace.getString(VERB);
    // Parse the input before touching the database: bad input costs no connection.
    UUID id = verb.equals("list") ? null : deadLetterId(namespace.getString("id"), verb);
    HikariDataSource pool = JobsCommand.open(config);
    try {
      HookRegistry hooks = new HookRegistry();
      PgUnitOfWork unitOfWork =
          new PgUnitOfWork(
              pool,
              config.database().txSettings(),
              hooks,
              Sleeper.system(),
              ThreadLocalRandom.current());
      JobRegistry registry =
          new JobRegistry(
              config.jobs().defaultMaxAttempts(),
              config.jobs().defaultTimeout().toJavaDuration(),
              config.jobs().rescueAfter().toJavaDuration());
      registry.register(
          DispatchJob.insertOnlyKind(config.bus().dispatch().jobTimeout().toJavaDuration()));
      registry.freeze();
      DeadLetters letters =
          new DeadLetterService(
              unitOfWork,
              new JooqDeadLetterRepository(),
              new JobInserterService(
                  unitOfWork,
                  hooks,
                  registry,
                  new JacksonPayloadCodec(Jackson.newObjectMapper()),
                  Clock.system()),
              Clock.system());
      switch (verb) {
        case "list" -> {
          List<DeadLetter> listed =
              letters.list(
                  Boolean.TRUE.equals(namespace.getBoolean("all")), namespace.getInt("limit"));
          out.print(table(listed));
        }
        case "show" -> out.print(show(letters.show(id)));
        case "replay" -> {
          DeadLetter replayed = letters.replay(id);
          out.println(
              "replayed "
                  + replayed.id()
                  + ": a bus.dispatch job runs "
                  + replayed.handler()
                  + " for event "
                  + replayed.eventSeq()
                  + " again on a worker");
        }
        default -> throw new IllegalArgumentException("unknown bus dead verb " + verb);
      }
      out.flush();
    } finally {
      JobsCommand.close(pool);
    }
  }

  static String table(List<DeadLetter> letters) {
    StringBuilder b =
        new StringBuilder(
            String.format(
                "%-36s  %-27s  %-32s  %10s  %-11s  %10s  %s%n",
                "ID", "DEAD AT", "HANDLER", "EVENT SEQ", "ERROR KIND", "DELIVERIES", "STATE"));
    for (DeadLetter l : letters) {
      b.append(
          String.format(
              "%-36s  %-27s  %-32s  %10d  %-11s  %10d  %s%n",
              l.id(),
              l.deadAt(),
              l.handler(),
              l.eventSeq(),
              l.errorKind(),
              l.deliveries(),
              l.open() ? "open" : "replayed"));
    }
    return b.toString();
  }

  static String show(DeadLetter l) {
    return "id: "
        + l.id()
        + "\nhandler: "
        + l.handler()
        + "\ndurable: "
        + l.durable()
        + "\nevent id: "
        + l.eventId()
        + "\nevent seq: "
        + l.eventSeq()
        + "\nevent type: "
        + l.eventType()
        + "\nerror kind: "
        + l.errorKind()
        + "\nerror class: "
        + l.errorClass()
        + "\nerror message: "
        + l.errorMessage()
        + "\ndeliveries: "
        + l.deliveries()
        + "\ndead at: "
        + l.deadAt()
        + "\nstate: "
        + (l.open() ? "open" : "replayed at " + l.replayedAt().orElseThrow())
        + "\nreplays: "
        + l.replays()
        + "\n";
  }

  private static UUID deadLetterId(String text, String verb) {
    return CommandIds.parse(text, "a dead letter id", "bus dead " + verb + " [file] id");
  }
}
