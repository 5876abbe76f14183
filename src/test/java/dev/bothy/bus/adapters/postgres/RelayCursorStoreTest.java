package dev.bothy.bus.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The relay cursor's store and table on a real PostgreSQL, as the runtime role. */
class RelayCursorStoreTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private final JooqRelayCursorRepository store = new JooqRelayCursorRepository();

  @Test
  void the_row_starts_before_the_oldest_retained_event_once_and_moves_only_from_the_value_read()
      throws SQLException {
    EventLogFixture fixture = new EventLogFixture(PG.app());
    UnitOfWork unit = fixture.uow;
    fixture.append(UUID.randomUUID(), 5);
    PgExtension.rows(
        PG.superuser(),
        "WITH d AS (DELETE FROM event_log WHERE seq < 3 RETURNING 1) SELECT count(*)::text FROM d");

    unit.run(
        () -> {
          store.ensureAtOldestRetained("EVENTS");
          return null;
        });
    assertThat(unit.run(() -> store.read("EVENTS"))).isEqualTo(OptionalLong.of(2));

    fixture.append(UUID.randomUUID(), 2);
    unit.run(
        () -> {
          store.ensureAtOldestRetained("EVENTS");
          return null;
        });
    assertThat(unit.run(() -> store.read("EVENTS"))).as("kept").isEqualTo(OptionalLong.of(2));

    assertThat(unit.run(() -> store.compareAndSet("EVENTS", 1, 7))).isFalse();
    assertThat(unit.run(() -> store.compareAndSet("EVENTS", 2, 7))).isTrue();
    assertThat(unit.run(() -> store.read("EVENTS"))).isEqualTo(OptionalLong.of(7));
  }

  @Test
  void an_empty_log_writes_no_row_until_its_first_event() throws SQLException {
    // The class shares one database: start from an empty log and no row.
    PgExtension.rows(
        PG.superuser(),
        "WITH l AS (DELETE FROM event_log RETURNING 1), c AS (DELETE FROM bus_relay_cursors"
            + " RETURNING 1) SELECT (SELECT count(*) FROM l) + (SELECT count(*) FROM c)");
    UnitOfWork unit = new EventLogFixture(PG.app()).uow;
    unit.run(
        () -> {
          store.ensureAtOldestRetained("EVENTS");
          return null;
        });
    assertThat(unit.run(() -> store.read("EVENTS"))).isEmpty();
    EventLogFixture log = new EventLogFixture(PG.app());
    log.append(UUID.randomUUID(), 1);
    long first = log.log.head();
    unit.run(
        () -> {
          store.ensureAtOldestRetained("EVENTS");
          return null;
        });
    assertThat(unit.run(() -> store.read("EVENTS"))).isEqualTo(OptionalLong.of(first - 1));
  }

  @Test
  void the_runtime_role_may_select_insert_and_update_and_nothing_else() throws SQLException {
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT privilege_type FROM information_schema.role_table_grants"
                    + " WHERE table_schema = 'public' AND table_name = 'bus_relay_cursors'"
                    + " AND grantee = 'bothy_app' ORDER BY privilege_type"))
        .isEqualTo(List.of("INSERT", "SELECT", "UPDATE"));
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT count(*)::text FROM information_schema.role_table_grants"
                    + " WHERE table_name = 'bus_relay_cursors' AND grantee = 'PUBLIC'"))
        .containsExactly("0");
  }
}
