package dev.bothy.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Facts about this build, filtered into {@code dev/bothy/build-info.properties} by Maven.
 *
 * <pre>{@code
 * String version = BuildInfo.version(); // "0.1.0-SNAPSHOT"
 * }</pre>
 */
public final class BuildInfo {
  private static final String RESOURCE = "/dev/bothy/build-info.properties";
  private static final Properties PROPERTIES = load();

  private BuildInfo() {}

  /**
   * Returns the server version, the Maven project version of this build.
   *
   * @return for example {@code "0.1.0-SNAPSHOT"}
   */
  public static String version() {
    return PROPERTIES.getProperty("version");
  }

  private static Properties load() {
    Properties properties = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }
}
