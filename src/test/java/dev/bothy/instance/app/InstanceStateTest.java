package dev.bothy.instance.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.instance.InstanceRecord;
import dev.bothy.instance.adapters.postgres.JooqInstanceRepository;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.TxSettings;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Random;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class InstanceStateTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final TxSettings SETTINGS =
      new TxSettings(
          Duration.ofSeconds(30),
          Duration.ofSeconds(5),
          Duration.ofSeconds(30),
          3,
          Duration.ofMillis(5),
          Duration.ofMillis(50));

  private static InstanceService state(DataSource dataSource) {
    return new InstanceService(
        new PgUnitOfWork(dataSource, SETTINGS, new HookRegistry(), d -> {}, new Random()),
        new JooqInstanceRepository());
  }

  @BeforeEach
  void emptyTable() throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM instance");
    }
  }

  @Test
  void load_on_an_empty_table_is_not_found_with_a_hint() {
    assertThatThrownBy(() -> state(PG.app()).load())
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND))
        .hasMessageContaining("run db migrate");
  }

  @Test
  void record_migration_creates_the_row_and_a_second_call_keeps_the_identity() {
    InstanceRecord first = state(PG.owner()).recordMigration(2, "0.1.0");

    assertThat(first.instanceId().version()).isEqualTo(7);
    assertThat(first.syncEpoch().version()).isEqualTo(7);
    assertThat(first.instanceId()).isNotEqualTo(first.syncEpoch());
    assertThat(first.schemaVersion()).isEqualTo(2);
    assertThat(first.minServerVersion()).isEqualTo("0.1.0");
    assertThat(first.setupCompleted()).isFalse();

    InstanceRecord second = state(PG.owner()).recordMigration(3, "0.2.0-rc.1");

    assertThat(second.instanceId()).isEqualTo(first.instanceId());
    assertThat(second.syncEpoch()).isEqualTo(first.syncEpoch());
    assertThat(second.createdAt()).isEqualTo(first.createdAt());
    assertThat(second.setupCompletedAt()).isEmpty();
    assertThat(second.schemaVersion()).isEqualTo(3);
    assertThat(second.minServerVersion()).isEqualTo("0.2.0-rc.1");
    assertThat(state(PG.app()).load()).isEqualTo(second);
  }

  @Test
  void the_setup_state_comes_from_setup_completed_at() throws SQLException {
    state(PG.owner()).recordMigration(2, "0.1.0");
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("UPDATE instance SET setup_completed_at = now()");
    }

    assertThat(state(PG.app()).load().setupCompleted()).isTrue();
  }

  @Test
  void bad_versions_are_refused_before_any_write() {
    assertThatThrownBy(() -> state(PG.owner()).recordMigration(0, "0.1.0"))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID));
    assertThatThrownBy(() -> state(PG.owner()).recordMigration(2, "v0.1"))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID));
    assertThatThrownBy(() -> state(PG.app()).load()).isInstanceOf(BothyException.class);
  }

  @Test
  void inside_a_unit_the_state_joins_it() {
    PgUnitOfWork unit =
        new PgUnitOfWork(PG.owner(), SETTINGS, new HookRegistry(), d -> {}, new Random());
    InstanceService joined = new InstanceService(unit, new JooqInstanceRepository());

    long version =
        unit.run(
            () -> {
              joined.recordMigration(5, "1.0.0");
              return joined.load().schemaVersion();
            });

    assertThat(version).isEqualTo(5);
  }
}
