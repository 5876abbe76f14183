package dev.bothy.wire;

import dev.bothy.kernel.Clock;
import dev.bothy.platform.lifecycle.ProcessExit;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.wire.config.BothyConfiguration;
import dev.bothy.wire.config.SecretSafeConfigurationFactoryFactory;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.CheckCommand;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * Bothy's Dropwizard application and the jar's entry point.
 *
 * <p>Commands: {@code api}, {@code worker} and {@code all} run the server in a role; {@code db}
 * ({@code migrate}, {@code status}, ...) manages the schema as {@code database.migrationUser};
 * {@code check} validates a configuration file. Dropwizard's plain {@code server} command is not
 * offered: the role commands replace it. The configuration file is optional; {@code ${VAR}} in it
 * is replaced from the environment, and an unset variable stops the start.
 *
 * <pre>{@code
 * java -jar bothy.jar db migrate config.yml
 * java -jar bothy.jar worker config.yml
 * }</pre>
 */
public final class BothyApplication extends Application<BothyConfiguration> {
  private volatile Assembly assembly;
  private final java.util.function.Consumer<Assembly> extension;
  private final Clock clock;

  /** Creates the application on the system clock. */
  public BothyApplication() {
    this(assembly -> {});
  }

  /**
   * Creates the application with an extension that runs on the assembly before the process starts:
   * a seam for launchers in this package's test sources (a worker with a probe consumer), since
   * production registers its modules in {@link Assembly} itself.
   *
   * @param extension registers extra job kinds or consumers
   */
  BothyApplication(java.util.function.Consumer<Assembly> extension) {
    this(extension, Clock.system());
  }

  /**
   * Creates the application with an extension and the clock every module of the process reads: a
   * seam for whole-application tests that drive time.
   *
   * @param extension registers extra job kinds or consumers
   * @param clock the one clock of the process
   */
  BothyApplication(java.util.function.Consumer<Assembly> extension, Clock clock) {
    this.extension = extension;
    this.clock = clock;
  }

  /**
   * Runs a command line.
   *
   * @param args the command and its arguments, such as {@code all config.yml}
   * @throws Exception when Dropwizard cannot even parse the arguments
   */
  public static void main(String[] args) throws Exception {
    new BothyApplication().run(args);
  }

  @Override
  public String getName() {
    return "bothy";
  }

  @Override
  protected void addDefaultCommands(Bootstrap<BothyConfiguration> bootstrap) {
    bootstrap.addCommand(
        new CheckCommand<>(this) {
          @Override
          public void configure(net.sourceforge.argparse4j.inf.Subparser subparser) {
            super.configure(subparser);
            subparser.help(getDescription());
          }

          @Override
          public void onError(Cli cli, Namespace namespace, Throwable e) {
            // The substitutor's own message names the variable in its library's words.
            java.util.Optional<String> unset = CommandErrors.unsetVariable(e);
            if (unset.isPresent()) {
              cli.getStdErr().println("check: " + unset.get());
            } else {
              super.onError(cli, namespace, e);
            }
          }
        });
  }

  @Override
  public void initialize(Bootstrap<BothyConfiguration> bootstrap) {
    // The default log format shows bothy.role; the role commands set it in the logger context,
    // the other commands (db, check) fall back to this system property.
    System.getProperties().putIfAbsent("bothy.role", "cli");
    // jOOQ prints a banner and a "tip of the day" at its first query; a newcomer reads them as
    // noise or worse. Set before any command can run a query; a -D on the command line wins.
    System.getProperties().putIfAbsent("org.jooq.no-logo", "true");
    System.getProperties().putIfAbsent("org.jooq.no-tips", "true");
    bootstrap.setConfigurationFactoryFactory(new SecretSafeConfigurationFactoryFactory<>());
    bootstrap.setConfigurationSourceProvider(
        new SubstitutingSourceProvider(
            bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(true)));
    bootstrap.addBundle(DbCommand.bundle());
    bootstrap.addCommand(new JobsCommand());
    bootstrap.addCommand(new BusCommand());
    bootstrap.addCommand(new TokensCommand());
    bootstrap.addCommand(
        new RoleCommand(this, Role.API, "Runs the HTTP API, the log tail and job inserts"));
    bootstrap.addCommand(
        new RoleCommand(
            this,
            Role.WORKER,
            "Runs job workers, worker consumers and maintenance; admin port only"));
    bootstrap.addCommand(
        new RoleCommand(this, Role.ALL, "Runs the api and worker roles in one process"));
  }

  @Override
  public void run(BothyConfiguration configuration, Environment environment) {
    assembly = Assembly.build(configuration, environment, ProcessExit.system(), clock);
    extension.accept(assembly);
    // After the extension, so the lag gauges cover every registered consumer and only those.
    ConsumerMetrics.register(
        environment.metrics(),
        assembly.sync().consumers(),
        clock,
        assembly.scrapeReads(),
        configuration.role().runsWorkers());
  }

  /**
   * Returns the object graph of the running process; for tests in this package.
   *
   * @return the assembly, or null before {@link #run(BothyConfiguration, Environment)}
   */
  Assembly assembly() {
    return assembly;
  }
}
