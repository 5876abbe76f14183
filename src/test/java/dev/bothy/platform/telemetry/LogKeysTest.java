package dev.bothy.platform.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The log lines of every module (sync: consumers, tail and listener waker; the platform: job
 * runtime, listener, unit of work and loops; the API; the bus; the instance; the wiring) read in
 * their source: every {@code key=} they write is in {@link TelemetryNames#LOG_KEYS}, no statement
 * logs an exception's message, and an exception handed to a logger goes through {@code
 * ErrorFields.redacted}. The captured-output side of the same rule is {@code LogsCarryNoDataTest}.
 */
class LogKeysTest {
  private static final List<String> MODULES =
      List.of(
          "dev/bothy/sync",
          "dev/bothy/platform",
          "dev/bothy/api",
          "dev/bothy/bus",
          "dev/bothy/instance",
          "dev/bothy/wire",
          "dev/bothy/kernel");

  // key={} or key=\"{}\" in a format string, or "key=" + value in a context string.
  private static final Pattern KEY =
      Pattern.compile(
          "(?<![A-Za-z0-9_.])([a-z][a-z0-9_.]*)=(?:\\\\\")?\\{\\}|\"([a-z][a-z0-9_.]*)=\" \\+");

  private static final Pattern LOG_CALL =
      Pattern.compile(
          "\\b(?:LOG|logger)\\.(?:trace|debug|info|warn|error)\\((.*?)\\);", Pattern.DOTALL);

  // The last argument of a log call when it is a bare exception variable.
  private static final Pattern THROWABLE_LAST =
      Pattern.compile(",\\s*(?:e|ex|cause|error|failure|t|e\\.getCause\\(\\))\\s*$");

  @Test
  void every_log_key_is_in_the_closed_set() throws IOException {
    TreeSet<String> unknown = new TreeSet<>();
    for (Path file : sources()) {
      Matcher m = KEY.matcher(Files.readString(file, StandardCharsets.UTF_8));
      while (m.find()) {
        String key = m.group(1) != null ? m.group(1) : m.group(2);
        if (!TelemetryNames.LOG_KEYS.contains(key)) {
          unknown.add(key + " in " + file.getFileName());
        }
      }
    }
    assertThat(unknown).as("log keys outside TelemetryNames.LOG_KEYS").isEmpty();
  }

  @Test
  void no_log_statement_carries_an_exception_message_or_an_unredacted_exception()
      throws IOException {
    List<String> offenders = new ArrayList<>();
    int calls = 0;
    for (Path file : sources()) {
      Matcher m = LOG_CALL.matcher(Files.readString(file, StandardCharsets.UTF_8));
      while (m.find()) {
        calls++;
        String args = m.group(1);
        if (args.contains("getMessage()")
            || args.contains("getLocalizedMessage()")
            || THROWABLE_LAST.matcher(args).find()) {
          offenders.add(file.getFileName() + ": " + args.replaceAll("\\s+", " "));
        }
      }
    }
    assertThat(calls).as("log calls found").isGreaterThan(30);
    assertThat(offenders).isEmpty();
  }

  @Test
  void the_closed_set_has_each_key_once_and_holds_the_span_keys() {
    assertThat(TelemetryNames.LOG_KEYS).doesNotHaveDuplicates();
    assertThat(TelemetryNames.LOG_KEYS)
        .containsAll(TelemetryNames.ATTRIBUTE_KEYS)
        .doesNotContain("error", "message", "lost_from", "lost_to");
  }

  private static List<Path> sources() throws IOException {
    Path root = Path.of(System.getProperty("bothy.test.projectDir", ".")).resolve("src/main/java");
    List<Path> files = new ArrayList<>();
    for (String module : MODULES) {
      try (Stream<Path> walk = Files.walk(root.resolve(module))) {
        walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
      }
    }
    assertThat(files).isNotEmpty();
    return files;
  }
}
