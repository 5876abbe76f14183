package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RenderedQueryTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Table<Record> RQ = DSL.table(DSL.name("rendered_scratch"));
  private static final Field<Integer> ID = DSL.field(DSL.name("id"), SQLDataType.INTEGER);
  private static final Field<String> V = DSL.field(DSL.name("v"), SQLDataType.VARCHAR);
  private static final Field<Integer> N = DSL.field(DSL.name("n"), SQLDataType.INTEGER);

  private PgUnitOfWork uow;

  @BeforeAll
  static void createTable() throws SQLException {
    ownerExecute("CREATE TABLE rendered_scratch (id int PRIMARY KEY, v text NOT NULL, n int)");
    ownerExecute("GRANT SELECT, INSERT, UPDATE ON rendered_scratch TO bothy_app");
  }

  @BeforeEach
  void setUp() throws SQLException {
    uow =
        new PgUnitOfWork(
            PG.app(),
            new TxSettings(
                Duration.ofSeconds(20),
                Duration.ofSeconds(5),
                Duration.ofSeconds(30),
                1,
                Duration.ofMillis(5),
                Duration.ofMillis(50)),
            new HookRegistry(),
            d -> Thread.sleep(d.toMillis()),
            new Random(7));
    ownerExecute("TRUNCATE rendered_scratch");
    ownerExecute(
        "INSERT INTO rendered_scratch VALUES (1, 'Alex', 10), (2, 'Sam', 20), (3, 'Robin', 30)");
  }

  @Test
  void renders_its_template_once_and_binds_new_values_at_every_execution() {
    AtomicInteger built = new AtomicInteger();
    RenderedQuery q =
        RenderedQuery.of(
            () -> {
              built.incrementAndGet();
              return DSL.select(ID, V).from(RQ).where(ID.eq(DSL.param("id", ID)));
            });

    List<String> names =
        uow.run(
            () ->
                List.of(1, 3, 2).stream()
                    .map(
                        id ->
                            q.resultQuery(PgTx.dsl(), Map.of("id", id))
                                .coerce(ID, V)
                                .fetchOne()
                                .value2())
                    .toList());

    assertThat(names).containsExactly("Alex", "Robin", "Sam");
    assertThat(built).hasValue(1);
    assertThat(q.sql()).contains("?").doesNotContain("Alex");
  }

  @Test
  void keeps_the_constants_of_the_template_and_binds_the_named_values_in_their_places() {
    // Constants and named parameters interleaved: set n = :n, v = 'fixed' where id >= 2 and
    // id <= :upto and v <> :not; the bind positions must line up.
    RenderedQuery q =
        RenderedQuery.of(
            () ->
                DSL.update(RQ)
                    .set(N, DSL.param("n", N))
                    .set(V, DSL.val("fixed"))
                    .where(ID.ge(DSL.val(2)))
                    .and(ID.le(DSL.param("upto", ID)))
                    .and(V.ne(DSL.param("not", V)))
                    .returning(ID));

    int updated =
        uow.run(
            () ->
                q.resultQuery(PgTx.dsl(), Map.of("n", 99, "upto", 3, "not", "Robin"))
                    .fetch()
                    .size());

    assertThat(updated).isEqualTo(1);
    assertThat(rows()).containsExactly("1:Alex:10", "2:fixed:99", "3:Robin:30");
  }

  @Test
  void binds_a_null_value_typed_by_its_parameter() {
    RenderedQuery q =
        RenderedQuery.of(
            () ->
                DSL.update(RQ)
                    .set(N, DSL.param("n", N))
                    .where(ID.eq(DSL.param("id", ID)))
                    .returning(ID));
    java.util.HashMap<String, Object> values = new java.util.HashMap<>();
    values.put("n", null);
    values.put("id", 2);

    uow.run(() -> q.resultQuery(PgTx.dsl(), values).fetch());

    Integer n = uow.run(() -> PgTx.dsl().select(N).from(RQ).where(ID.eq(2)).fetchOne(N));
    assertThat(n).isNull();
  }

  @Test
  void refuses_a_missing_value_and_a_value_of_no_parameter() {
    RenderedQuery q =
        RenderedQuery.of(() -> DSL.select(V).from(RQ).where(ID.eq(DSL.param("id", ID))));

    assertThatThrownBy(() -> uow.run(() -> q.resultQuery(PgTx.dsl(), Map.of()).fetch()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no value for the parameter id");
    assertThatThrownBy(
            () -> uow.run(() -> q.resultQuery(PgTx.dsl(), Map.of("id", 1, "other", 2)).fetch()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("other");
  }

  @Test
  void counts_the_rows_a_write_returns_with_its_values_bound_through_jdbc() {
    RenderedQuery q =
        RenderedQuery.of(
            () ->
                DSL.update(RQ)
                    .set(N, DSL.param("n", N))
                    .set(V, DSL.val("fixed"))
                    .where(ID.ge(DSL.val(2)))
                    .and(V.ne(DSL.param("not", V)))
                    .returning(ID));
    java.util.HashMap<String, Object> values = new java.util.HashMap<>();
    values.put("n", null);
    values.put("not", "Robin");

    int updated = uow.run(() -> q.countRows(PgTx.dsl(), values));
    int again = uow.run(() -> q.countRows(PgTx.dsl(), Map.of("n", 7, "not", "fixed")));

    assertThat(updated).isEqualTo(1);
    assertThat(again).isEqualTo(1);
    assertThat(rows()).containsExactly("1:Alex:10", "2:fixed:null", "3:fixed:7");
  }

  @Test
  void counting_through_jdbc_refuses_an_array_parameter() {
    RenderedQuery q =
        RenderedQuery.of(
            () ->
                DSL.update(RQ)
                    .set(N, DSL.val(1))
                    .where(ID.eq(DSL.any(DSL.param("ids", SQLDataType.INTEGER.array()))))
                    .returning(ID));

    assertThatThrownBy(
            () -> uow.run(() -> q.countRows(PgTx.dsl(), Map.of("ids", new Integer[] {1}))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("array");
  }

  @Test
  void refuses_a_template_without_a_result() {
    // jOOQ classifies a plain SQL statement without a result by rendering it again and matching
    // regular expressions at every execution, which cost about as much as rendering once saves.
    assertThatThrownBy(
            () ->
                RenderedQuery.of(
                    () -> DSL.update(RQ).set(N, DSL.param("n", N)).where(ID.eq(DSL.val(1)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("RETURNING");
  }

  @Test
  void refuses_a_template_that_uses_one_named_parameter_twice() {
    assertThatThrownBy(
            () ->
                RenderedQuery.of(
                    () ->
                        DSL.select(V)
                            .from(RQ)
                            .where(ID.eq(DSL.param("id", ID)))
                            .or(N.eq(DSL.param("id", ID)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than once");
  }

  /** Every row of the scratch table as id:v:n, in id order. */
  private List<String> rows() {
    return uow.run(
        () ->
            PgTx.dsl()
                .select(ID, V, N)
                .from(RQ)
                .orderBy(ID)
                .fetch(r -> r.value1() + ":" + r.value2() + ":" + r.value3()));
  }

  private static void ownerExecute(String sql) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
