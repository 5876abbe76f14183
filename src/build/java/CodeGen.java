import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Comparator;
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
    Files.createDirectories(scratch);
    long started = System.nanoTime();
    try (EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setDataDirectory(scratch.resolve("data"))
            .setCleanDataDirectory(true)
            .start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      migrate(pg, changelogDir);
      // The generator writes every file anew; removing the package first means a dropped table
      // leaves no stale class behind, and CI's drift check sees the removal.
      deleteTree(outputDir.resolve(PACKAGE.replace('.', '/')));
      GenerationTool.generate(configuration(url, outputDir));
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

  private static Configuration configuration(String url, Path outputDir) {
    return new Configuration()
        .withLogging(Logging.WARN)
        .withJdbc(new Jdbc().withDriver("org.postgresql.Driver").withUrl(url).withUser("postgres"))
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
