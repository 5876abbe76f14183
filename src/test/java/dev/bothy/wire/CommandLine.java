package dev.bothy.wire;

import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Runs Bothy's command line inside the test JVM, exactly as {@code main} builds it, but returns the
 * failure instead of exiting the JVM.
 */
final class CommandLine {
  private CommandLine() {}

  /** What a command printed and whether it failed. */
  record Outcome(Optional<Throwable> failure, String out, String err) {
    boolean succeeded() {
      return failure.isEmpty();
    }
  }

  static Outcome run(String... args) {
    BothyApplication application = new BothyApplication();
    Bootstrap<BothyConfiguration> bootstrap = new Bootstrap<>(application);
    application.addDefaultCommands(bootstrap);
    application.initialize(bootstrap);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Cli cli = new Cli(new JarLocation(BothyApplication.class), bootstrap, out, err);
    // Commands that print results (jobs) write to System.out: capture it with the Cli's own.
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    Optional<Throwable> failure;
    try {
      failure = cli.run(args);
    } finally {
      System.out.flush();
      System.setOut(stdout);
    }
    return new Outcome(
        failure, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
