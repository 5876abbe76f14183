package dev.bothy.console.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console page in a real browser: {@code src/test/js/console-e2e.mjs} drives Debian's Chromium
 * through {@code playwright-core} against two running {@code all} processes on one database, one
 * with {@code console.readOnly: true}. Scenarios: a wrong token, log in and see a consumer's lag
 * and the charts (lag, pending age, append and job rates), filter jobs by state and retry a
 * discarded job until it leaves the list, show a dead letter's error history and replay it until it
 * leaves the list, see a webhook subscription's attempts, no action without {@code admin:write},
 * none in read-only mode. A screenshot of each page goes to {@code target/console-screenshots}.
 *
 * <p>What it needs is installed on first use: Chromium from Debian's package (as root, like the
 * rest of the build) and {@code playwright-core} from the npm registry into {@code
 * target/console-e2e}, so {@code mvn -B verify} passes on a fresh machine.
 */
class ConsoleBrowserTest {
  /** The pinned version of playwright-core; it drives the system's Chromium, never its own. */
  static final String PLAYWRIGHT = "playwright-core@1.65.1";

  static final Path WORK = Path.of("target/console-e2e").toAbsolutePath();
  static final Path SCREENSHOTS = Path.of("target/console-screenshots").toAbsolutePath();

  /** Open dead letters of the fixture. */
  static final int DEAD_LETTERS = 4;

  /** Attempts of the fixture's subscription: one page. */
  static final int ATTEMPTS = 12;

  /** Charts need two samples: sample often. */
  static final String FAST_SAMPLES = "console:\n  sampleInterval: 200ms\n";

  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP =
      new ApiAppExtension(
          PG,
          FAST_SAMPLES,
          pg -> {
            try (Connection c = pg.owner().getConnection();
                Statement s = c.createStatement()) {
              s.execute(
                  "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts,"
                      + " priority, scheduled_at, created_at, finalized_at, errors) SELECT"
                      + " gen_random_uuid(), 'console.probe', 'console_test', '{}'::jsonb,"
                      + " 'discarded', 3, 3, 2, now(), now(), now(),"
                      + " jsonb_build_array(jsonb_build_object('at', now(), 'attempt', 3,"
                      + " 'kind', 'error', 'error', 'java.lang.IllegalStateException', 'message',"
                      + " 'probe failed')) FROM generate_series(1, 6)");
              // Finished jobs, which offer neither retry nor cancel.
              s.execute(
                  "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts,"
                      + " priority, scheduled_at, created_at, attempted_at, finalized_at, errors)"
                      + " SELECT gen_random_uuid(), 'console.done', 'console_test', '{}'::jsonb,"
                      + " 'completed', 1, 3, 2, now(), now(), now(), now(), '[]'::jsonb"
                      + " FROM generate_series(1, 2)");
              ConsoleFixtures.deadLetters(c, DEAD_LETTERS);
              ConsoleFixtures.webhooks(c, ATTEMPTS);
            }
          });

  @RegisterExtension
  static final ApiAppExtension READ_ONLY =
      new ApiAppExtension(PG, "console:\n  readOnly: true\n  sampleInterval: 200ms\n");

  @Test
  void the_console_works_in_chromium() throws Exception {
    APP.app().append(5);
    Path chromium = chromium();
    installPlaywright();
    Path script = WORK.resolve("console-e2e.mjs");
    Files.copy(Path.of("src/test/js/console-e2e.mjs"), script, StandardCopyOption.REPLACE_EXISTING);
    Path output = WORK.resolve("console-e2e.log");
    ProcessBuilder node = new ProcessBuilder("node", script.toString());
    node.directory(WORK.toFile());
    node.environment().put("CONSOLE_URL", "http://127.0.0.1:" + APP.app().adminPort());
    node.environment()
        .put("CONSOLE_READ_ONLY_URL", "http://127.0.0.1:" + READ_ONLY.app().adminPort());
    node.environment().put("ADMIN_TOKEN", ApiApp.ROBIN_ADMIN);
    node.environment().put("READER_TOKEN", ApiApp.ROBIN);
    node.environment().put("SCREENSHOTS", SCREENSHOTS.toString());
    node.environment().put("CHROMIUM", chromium.toString());
    node.environment().put("DEAD_LETTERS", Integer.toString(DEAD_LETTERS));
    node.environment().put("SUBSCRIPTION", ConsoleFixtures.SUBSCRIPTION);
    node.environment().put("ATTEMPTS", Integer.toString(ATTEMPTS));
    node.redirectErrorStream(true).redirectOutput(output.toFile());
    Process run = node.start();
    boolean ended = run.waitFor(180, TimeUnit.SECONDS);
    if (!ended) {
      run.destroyForcibly();
    }
    String log = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(ended).as(log).isTrue();
    assertThat(run.exitValue()).as(log).isZero();
    assertThat(log).contains("console browser tests: 8 passed, 0 failed");
    for (String shot :
        List.of(
            "login.png",
            "overview.png",
            "jobs-discarded.png",
            "jobs-after-retry.png",
            "dead-letters.png",
            "dead-letters-after-replay.png",
            "webhooks.png",
            "no-write-scope.png",
            "read-only.png")) {
      assertThat(SCREENSHOTS.resolve(shot)).isNotEmptyFile();
    }
  }

  /** Debian's Chromium, installed with apt-get when missing (the build runs as root). */
  static Path chromium() throws Exception {
    Path installed = Path.of("/usr/bin/chromium");
    if (!Files.isExecutable(installed)) {
      run(Path.of("."), 900, "apt-get", "update", "-q");
      run(
          Path.of("."),
          900,
          "apt-get",
          "install",
          "-y",
          "-q",
          "--no-install-recommends",
          "chromium");
    }
    assertThat(installed).as("Debian's chromium package").isExecutable();
    return installed;
  }

  /** playwright-core from the npm registry into target/console-e2e, once per clean build. */
  static void installPlaywright() throws Exception {
    Files.createDirectories(WORK);
    if (!Files.isDirectory(WORK.resolve("node_modules/playwright-core"))) {
      run(
          WORK,
          300,
          "npm",
          "install",
          "--no-audit",
          "--no-fund",
          "--no-save",
          "--prefix",
          WORK.toString(),
          PLAYWRIGHT);
    }
  }

  private static void run(Path dir, int seconds, String... command) throws Exception {
    Path log = Files.createTempFile("bothy-console-e2e", ".log");
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " took longer than " + seconds + " s");
      }
      assertThat(p.exitValue())
          .as(String.join(" ", command) + ":\n" + Files.readString(log, StandardCharsets.UTF_8))
          .isZero();
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
