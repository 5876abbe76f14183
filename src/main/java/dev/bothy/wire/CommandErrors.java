package dev.bothy.wire;

import dev.bothy.kernel.BothyException;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.core.cli.Cli;

/**
 * How the roles and {@code db} report a failure: a bad configuration or a {@link BothyException}
 * (whose messages name the key or the step and never a value) in one line, as {@code check} does;
 * anything else with its stack trace, since that is a defect to report. Dropwizard's default prints
 * every failure's stack trace, and the causes of a parse failure would quote the value.
 */
final class CommandErrors {
  private CommandErrors() {}

  /**
   * Prints a command's failure.
   *
   * @param cli the command line, for its standard error
   * @param command the command's name, such as {@code all} or {@code db migrate}
   * @param failure what the command threw
   */
  static void print(Cli cli, String command, Throwable failure) {
    if (failure instanceof ConfigurationException || failure instanceof BothyException) {
      cli.getStdErr().println(command + ": " + failure.getMessage());
    } else {
      failure.printStackTrace(cli.getStdErr());
    }
  }
}
