package dev.bothy.wire;

import dev.bothy.testing.PgExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link ApiApp} per test class: started before the class's tests on its own database copy and
 * scratch directory, stopped after them, and then every log file searched for a token. Register it
 * after the class's {@link PgExtension}, which must start first.
 *
 * <pre>{@code
 * @RegisterExtension static final PgExtension PG = new PgExtension();
 * @RegisterExtension static final ApiAppExtension APP =
 *     new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);
 * }</pre>
 */
public final class ApiAppExtension implements BeforeAllCallback, AfterAllCallback {
  /** Work on the class's database before the application starts. */
  @FunctionalInterface
  public interface BeforeStart {
    /**
     * Runs before the start.
     *
     * @param pg the class's database
     * @throws Exception any failure, which fails the class
     */
    void run(PgExtension pg) throws Exception;
  }

  private final PgExtension pg;
  private final String extraYaml;
  private final BeforeStart beforeStart;
  private Path dir;
  private ApiApp app;

  /**
   * An application with extra configuration.
   *
   * @param pg the class's database extension
   * @param extraYaml YAML appended to the test configuration, such as {@link
   *     ApiApp#SMALL_SYNC_LIMITS}
   */
  public ApiAppExtension(PgExtension pg, String extraYaml) {
    this(pg, extraYaml, db -> {});
  }

  /**
   * An application with extra configuration and work on the database before it starts.
   *
   * @param pg the class's database extension
   * @param extraYaml YAML appended to the test configuration
   * @param beforeStart runs before the start
   */
  public ApiAppExtension(PgExtension pg, String extraYaml, BeforeStart beforeStart) {
    this.pg = pg;
    this.extraYaml = extraYaml;
    this.beforeStart = beforeStart;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("bothy-api-test");
    beforeStart.run(pg);
    app = ApiApp.start(pg, dir, extraYaml);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (app != null) {
        app.stopAndSearchTheLogs();
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * Returns the running application.
   *
   * @return the application
   * @throws IllegalStateException outside the class's tests
   */
  public ApiApp app() {
    if (app == null) {
      throw new IllegalStateException("the application starts before the class's tests");
    }
    return app;
  }
}
