import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.util.Base64;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.DirectoryResourceAccessor;
import org.jooq.codegen.GenerationTool;
import org.jooq.meta.jaxb.Configuration;
import org.jooq.meta.jaxb.Generate;
import org.jooq.meta.jaxb.Generator;
import org.jooq.meta.jaxb.Jdbc;
import org.jooq.meta.jaxb.Logging;
import org.jooq.meta.jaxb.Target;

/**
 * The build's code generation step: starts an embedded PostgreSQL 18, applies the Liquibase
 * changelog and runs jOOQ's generator into {@code generated/}.
 *
 * <p>Runs in a forked JVM as a single source file (see docs/adr/0004-code-generation-pipeline.md),
 * so it needs none of the project's classes compiled first and keeps Liquibase and jOOQ-codegen out
 * of Maven's JVM.
 *
 * <p>Arguments: the changelog directory, the output directory and a scratch directory for the
 * throw-away database.
 */
public final class CodeGen {
  private static final String PACKAGE = "dev.bothy.db";

  private CodeGen() {}

  /**
   * Generates the jOOQ sources.
   *
   * @param args changelog directory, output directory, scratch directory
   * @throws Exception when PostgreSQL, Liquibase or the generator fails; the build stops
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException(
          "usage: CodeGen <changelog dir> <output dir> <scratch dir>");
    }
    Path changelogDir = Path.of(args[0]).toAbsolutePath();
    Path outputDir = Path.of(args[1]).toAbsolutePath();
    Path scratch = Path.of(args[2]).toAbsolutePath();
    deleteTree(scratch);
    Files.createDirectories(scratch.getParent());
    Files.createDirectory(scratch, PosixFilePermissions.asFileAttribute(PRIVATE));
    long started = System.nanoTime();
    // As the embedded server of the application (D-SEC-1, D-SEC-2): the binaries in a directory
    // only this user may enter, not the library's shared /tmp/embedded-pg; no Unix socket; a
    // password for every connection, so no other local user can change the schema it reads.
    Path binaries = privateDirectory(scratch.resolveSibling("codegen-postgres-binaries"));
    String password = password();
    Path passwordFile = scratch.resolve("password");
    Files.writeString(passwordFile, password + "\n", StandardCharsets.US_ASCII);
    try (EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setOverrideWorkingDirectory(binaries.resolve("pg").toFile())
            .setDataDirectory(scratch.resolve("data"))
            .setCleanDataDirectory(true)
            .setServerConfig("unix_socket_directories", "")
            .setLocaleConfig("pwfile", passwordFile.toString())
            .setLocaleConfig("auth-local", "scram-sha-256")
            .setLocaleConfig("auth-host", "scram-sha-256")
            .setConnectConfig("password", password)
            .start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      migrate(pg, changelogDir);
      // The generator writes every file anew; removing the package first means a dropped table
      // leaves no stale class behind, and CI's drift check sees the removal.
      deleteTree(outputDir.resolve(PACKAGE.replace('.', '/')));
      GenerationTool.generate(configuration(url, password, outputDir));
    } finally {
      deleteTree(scratch);
    }
    System.out.printf(
        "jOOQ sources generated in %s (%d ms)%n",
        outputDir, (System.nanoTime() - started) / 1_000_000);
  }

  private static void migrate(EmbeddedPostgres pg, Path changelogDir) throws Exception {
    try (Connection c = pg.getPostgresDatabase().getConnection()) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      Scope.child(
          Scope.Attr.resourceAccessor.name(),
          new DirectoryResourceAccessor(changelogDir),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, "master.xml")
                  .execute());
    }
  }

  private static final Set<PosixFilePermission> PRIVATE =
      PosixFilePermissions.fromString("rwx------");

  /** 32 random bytes, URL-safe base64. */
  private static String password() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Creates the directory for this user alone, or checks that the one there is a real directory of
   * this user closed to others (another user could otherwise put a binary in it for the build to
   * run).
   */
  private static Path privateDirectory(Path dir) throws Exception {
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
    } catch (FileAlreadyExistsException exists) {
      // Checked below, whoever made it.
    }
    Path probe = Files.createTempFile(dir.getParent(), "codegen-owner", ".probe");
    UserPrincipal me;
    try {
      me = Files.getOwner(probe);
    } finally {
      Files.deleteIfExists(probe);
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
        || !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).equals(me)
        || !PRIVATE.containsAll(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS))) {
      throw new IllegalStateException(
          dir + " is not a directory of this user closed to others: remove it");
    }
    return dir;
  }

  private static Configuration configuration(String url, String password, Path outputDir) {
    return new Configuration()
        .withLogging(Logging.WARN)
        .withJdbc(
            new Jdbc()
                .withDriver("org.postgresql.Driver")
                .withUrl(url)
                .withUser("postgres")
                .withPassword(password))
        .withGenerator(
            new Generator()
                .withDatabase(
                    new org.jooq.meta.jaxb.Database()
                        .withName("org.jooq.meta.postgres.PostgresDatabase")
                        .withInputSchema("public")
                        .withOutputSchemaToDefault(false)
                        // Liquibase's bookkeeping and the partition children of event_log are
                        // not part of the application's model.
                        .withExcludes(
                            "databasechangelog|databasechangeloglock|event_log_p[0-9_]+|event_log_default"))
                .withGenerate(
                    new Generate()
                        .withGeneratedAnnotation(false)
                        .withJavaTimeTypes(true)
                        .withRecords(true)
                        .withPojos(false)
                        .withDaos(false)
                        .withRoutines(false)
                        .withComments(true)
                        // The schema exists before its first table; generating it keeps the
                        // pipeline and its drift check honest from the first changeset on.
                        .withEmptySchemas(true))
                .withTarget(
                    new Target()
                        .withPackageName(PACKAGE)
                        .withDirectory(outputDir.toString())
                        .withClean(true)
                        .withEncoding("UTF-8")));
  }

  private static void deleteTree(Path root) throws Exception {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
