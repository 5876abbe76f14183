package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code java -jar bothy.jar -h} lists every command with what it does. */
class CommandHelpTest {
  @Test
  void the_top_level_help_says_what_each_command_does() {
    // argparse4j justifies its lines with extra spaces.
    String help = CommandLine.run("-h").out().replaceAll("\\s+", " ");

    assertThat(help)
        .contains("check Parses and validates the configuration file")
        .contains("db Run database migration tasks")
        .contains("jobs Lists, shows, retries and cancels background jobs")
        .contains("bus Operator commands of the bus")
        .contains("tokens Prints the SHA-256 of an API token")
        .contains("api Runs the HTTP API, the log tail and job inserts")
        .contains("worker Runs job workers, worker consumers and maintenance")
        .contains("all Runs the api and worker roles in one process");
  }
}
