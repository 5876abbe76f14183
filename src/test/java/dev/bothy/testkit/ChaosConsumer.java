package dev.bothy.testkit;

import dev.bothy.bus.BusConsumer;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The consumer under a chaos suite: its module, how to build its bus consumers over a run's parts,
 * the tables it owns (emptied before each run) and how to read them as its end state.
 *
 * <pre>{@code
 * ChaosConsumer echo = ChaosConsumer.of(
 *     "system",
 *     ctx -> List.of(new BusConsumer("system_echo",
 *         List.of(BusHandler.of(Echo.NAME, SystemEvents.PINGED, new Echo(new JooqPingRepository()))))),
 *     List.of("system_pings"),
 *     owner -> PgExtension.rows(owner, "SELECT id || ' ' || status || ' ' || echoed_at"
 *         + " FROM system_pings ORDER BY id"));
 * }</pre>
 *
 * @param module the module's name, as {@code BusDispatchModule.register} takes it
 * @param consumers builds the module's bus consumers over a run's parts
 * @param ownedTables the tables the consumer writes, at least one; emptied before every run
 * @param state reads the owned tables as lines; the order of the lines must not depend on the order
 *     of deliveries (sort them)
 */
public record ChaosConsumer(
    String module, Factory consumers, List<String> ownedTables, StateReader state) {
  private static final Pattern TABLE = Pattern.compile("[a-z][a-z0-9_]*");

  /** Builds a module's bus consumers over the parts of a run. */
  @FunctionalInterface
  public interface Factory {
    /**
     * Builds the consumers.
     *
     * @param context the run's unit of work, appender and clock
     * @return the module's consumers, as its wiring declares them
     */
    List<BusConsumer> build(ChaosContext context);
  }

  /** Reads the tables a consumer owns as lines of text. */
  @FunctionalInterface
  public interface StateReader {
    /**
     * Reads the end state.
     *
     * @param owner a data source of the owner role on the run's database
     * @return one line per row, sorted, with no value that differs between two correct runs (no
     *     random id, no wall-clock time)
     * @throws SQLException when a read fails
     */
    List<String> read(DataSource owner) throws SQLException;
  }

  /** Checks the fields: a consumer with no table of its own has no end state to compare. */
  public ChaosConsumer {
    Objects.requireNonNull(module, "module");
    Objects.requireNonNull(consumers, "consumers");
    Objects.requireNonNull(state, "state");
    ownedTables = List.copyOf(ownedTables);
    if (ownedTables.isEmpty()) {
      throw new IllegalArgumentException(
          "the consumer of module "
              + module
              + " names no table it owns: a chaos suite compares the owned tables' end state,"
              + " so declare them (ChaosConsumer.ownedTables)");
    }
    for (String table : ownedTables) {
      if (!TABLE.matcher(table).matches()) {
        throw new IllegalArgumentException("not a plain table name: " + table);
      }
    }
  }

  /**
   * Returns a consumer under test.
   *
   * @param module the module's name
   * @param consumers builds its bus consumers
   * @param ownedTables the tables it writes
   * @param state reads them
   * @return the consumer
   */
  public static ChaosConsumer of(
      String module, Factory consumers, List<String> ownedTables, StateReader state) {
    return new ChaosConsumer(module, consumers, ownedTables, state);
  }
}
