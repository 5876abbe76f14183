package dev.bothy.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command-line tool the tests need (promtool, nats-server): from the {@code PATH} or a fixed
 * directory if it is there, otherwise unpacked from its Debian package into {@code target/tools}
 * ({@code apt-get download} and {@code dpkg-deb -x}: nothing is installed and no service starts),
 * so {@code mvn -B verify} needs nothing beyond a JDK and Maven on a Debian machine.
 */
public final class DebianTool {
  private static final Path TOOLS = Path.of("target/tools").toAbsolutePath();

  private DebianTool() {}

  /**
   * Finds or unpacks a tool. Synchronized: the test classes of one JVM share {@code target/tools}.
   *
   * @param name the executable's file name, such as {@code nats-server}
   * @param debianPackage the Debian package that ships it, such as {@code nats-server}
   * @param pathInPackage where the package puts it, such as {@code usr/sbin/nats-server}
   * @param extraDirs directories to look in after the {@code PATH}, such as {@code /usr/sbin}
   * @return the executable
   * @throws Exception when it is nowhere and the download or the unpacking fails
   */
  public static synchronized Path find(
      String name, String debianPackage, String pathInPackage, List<String> extraDirs)
      throws Exception {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
        return Path.of(dir, name);
      }
    }
    for (String dir : extraDirs) {
      if (Files.isExecutable(Path.of(dir, name))) {
        return Path.of(dir, name);
      }
    }
    Path unpacked = TOOLS.resolve("unpacked").resolve(pathInPackage);
    if (Files.isExecutable(unpacked)) {
      return unpacked;
    }
    Files.createDirectories(TOOLS);
    if (!download(debianPackage)) {
      // A fresh machine may have no package lists yet; refreshing them needs root.
      run(TOOLS, "apt-get", "update", "-q");
      if (!download(debianPackage)) {
        throw new AssertionError(
            name
                + " is required by the tests and apt-get download "
                + debianPackage
                + " failed; install "
                + name
                + " on the PATH");
      }
    }
    try (var debs = Files.list(TOOLS)) {
      Path deb =
          debs.filter(f -> f.getFileName().toString().startsWith(debianPackage + "_"))
              .filter(f -> f.getFileName().toString().endsWith(".deb"))
              .findFirst()
              .orElseThrow();
      run(TOOLS, "dpkg-deb", "-x", deb.toString(), "unpacked");
    }
    if (!Files.isExecutable(unpacked)) {
      throw new AssertionError(debianPackage + " has no " + pathInPackage);
    }
    return unpacked;
  }

  private static boolean download(String debianPackage) {
    try {
      run(TOOLS, "apt-get", "download", "-q", debianPackage);
      return true;
    } catch (Exception | AssertionError e) {
      return false;
    }
  }

  /**
   * Runs a command to its end.
   *
   * @param dir its working directory
   * @param command the command and its arguments
   * @return its combined output
   * @throws Exception when it cannot start, overruns five minutes or exits non-zero
   */
  public static String run(Path dir, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " failed:\n" + out);
    }
    return out;
  }
}
