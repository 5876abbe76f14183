package dev.bothy.wire;

import dev.bothy.kernel.BothyException;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.UndefinedEnvironmentVariableException;
import io.dropwizard.core.cli.Cli;
import java.net.BindException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the roles and {@code db} report a failure: a bad configuration or a {@link BothyException}
 * (whose messages name the key or the step and never a value) or a configuration file that is not
 * there in one line, as {@code check} does; a {@code ${VARIABLE}} in the configuration whose
 * environment variable is not set, in one line naming it (every command); a connector that cannot
 * bind in one line naming the connector keys; anything else with its stack trace, since that is a
 * defect to report. Dropwizard's default prints every failure's stack trace, and the causes of a
 * parse failure would quote the value.
 */
final class CommandErrors {
  private static final String JETTY_BIND_FAILURE = "Failed to bind to ";
  // The substitutor's (commons-text) message: "Cannot resolve variable 'NAME' (...)".
  private static final Pattern UNSET_VARIABLE = Pattern.compile("variable '([^']*)'");

  private CommandErrors() {}

  /**
   * Prints a command's failure.
   *
   * @param cli the command line, for its standard error
   * @param command the command's name, such as {@code all} or {@code db migrate}
   * @param failure what the command threw
   */
  static void print(Cli cli, String command, Throwable failure) {
    String bind = bindFailure(failure);
    if (bind != null) {
      // Dropwizard has logged the stack trace already; the last line says what to change.
      cli.getStdErr()
          .println(
              command
                  + ": cannot listen on "
                  + bind
                  + ": change the port or bindHost of server.applicationConnectors or"
                  + " server.adminConnectors, or stop the process that holds the port");
      return;
    }
    Optional<String> unset = unsetVariable(failure);
    Optional<BothyException> refused = bothyException(failure);
    if (unset.isPresent()) {
      cli.getStdErr().println(command + ": " + unset.get());
    } else if (failure instanceof ConfigurationException
        || failure instanceof java.io.FileNotFoundException) {
      // Dropwizard's "File NAME not found" for a configuration file that is not there.
      cli.getStdErr().println(command + ": " + failure.getMessage());
    } else if (refused.isPresent()) {
      // Its message names the key or the step, wherever a library wrapped it.
      cli.getStdErr().println(command + ": " + refused.get().getMessage());
    } else {
      failure.printStackTrace(cli.getStdErr());
    }
  }

  /** The first {@link BothyException} of the failure's chain. */
  private static Optional<BothyException> bothyException(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof BothyException b) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }

  /**
   * Says which environment variable the configuration names but the environment lacks, when that is
   * the failure.
   *
   * @param failure what a command threw
   * @return the sentence, without the command's name; empty for any other failure
   */
  static Optional<String> unsetVariable(Throwable failure) {
    if (!(failure instanceof UndefinedEnvironmentVariableException)) {
      return Optional.empty();
    }
    Matcher name = UNSET_VARIABLE.matcher(String.valueOf(failure.getMessage()));
    String variable = name.find() ? name.group(1) : null;
    return Optional.of(
        variable == null
            ? "the configuration uses an environment variable that is not set: set it, or write"
                + " the value into the file"
            : "the configuration uses ${"
                + variable
                + "}, but the environment variable "
                + variable
                + " is not set: set it, or write the value into the file");
  }

  /**
   * Jetty's "Failed to bind to ADDRESS" with the socket's reason, or null for other failures: a
   * port the embedded PostgreSQL cannot take is a {@link BothyException} naming its own key.
   */
  private static String bindFailure(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof BothyException) {
        return null;
      }
      if (t.getCause() instanceof BindException reason) {
        String message = String.valueOf(t.getMessage());
        String address =
            message.startsWith(JETTY_BIND_FAILURE)
                ? message.substring(JETTY_BIND_FAILURE.length())
                : "a connector's address";
        return address + " (" + reason.getMessage() + ")";
      }
    }
    return null;
  }
}
