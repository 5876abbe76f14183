package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.Result;
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
                    .map(id -> q.fetch(PgTx.dsl(), Map.of("id", id)).get(0).get(V))
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
        uow.run(() -> q.fetch(PgTx.dsl(), Map.of("n", 99, "upto", 3, "not", "Robin")).size());

    assertThat(updated).isEqualTo(1);
    assertThat(rows()).containsExactly("1:Alex:10", "2:fixed:99", "3:Robin:30");
  }

  @Test
  void binds_a_null_value() {
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

    uow.run(() -> q.fetch(PgTx.dsl(), values));

    Integer n = uow.run(() -> PgTx.dsl().select(N).from(RQ).where(ID.eq(2)).fetchOne(N));
    assertThat(n).isNull();
  }

  @Test
  void refuses_a_missing_value_and_a_value_of_no_parameter() {
    RenderedQuery q =
        RenderedQuery.of(() -> DSL.select(V).from(RQ).where(ID.eq(DSL.param("id", ID))));

    assertThatThrownBy(() -> uow.run(() -> q.fetch(PgTx.dsl(), Map.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no value for the parameter id");
    assertThatThrownBy(() -> uow.run(() -> q.fetch(PgTx.dsl(), Map.of("id", 1, "other", 2))))
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
  void counts_the_rows_of_a_write_with_an_array_parameter() {
    RenderedQuery q =
        RenderedQuery.of(
            () ->
                DSL.update(RQ)
                    .set(N, DSL.val(1))
                    .where(ID.eq(DSL.any(DSL.param("ids", SQLDataType.INTEGER.array()))))
                    .returning(ID));

    int updated = uow.run(() -> q.countRows(PgTx.dsl(), Map.of("ids", new Integer[] {1, 3, 9})));

    assertThat(updated).isEqualTo(2);
    assertThat(rows()).containsExactly("1:Alex:1", "2:Sam:20", "3:Robin:1");
  }

  @Test
  void binds_arrays_of_every_element_type_with_nulls_and_quotes_and_reads_typed_values() {
    // Each column aliased: all of them are called unnest, and a reader by column name (into(),
    // a record looked up with an equal but not identical field) would take the first.
    Field<UUID> u =
        DSL.function("unnest", UUID.class, DSL.param("u", SQLDataType.UUID.array())).as("u");
    Field<Long> b =
        DSL.function("unnest", Long.class, DSL.param("b", SQLDataType.BIGINT.array())).as("b");
    Field<Integer> i =
        DSL.function("unnest", Integer.class, DSL.param("i", SQLDataType.INTEGER.array())).as("i");
    Field<String> t =
        DSL.function("unnest", String.class, DSL.param("t", SQLDataType.CLOB.array())).as("t");
    Field<OffsetDateTime> at =
        DSL.function(
                "unnest",
                OffsetDateTime.class,
                DSL.param("at", SQLDataType.TIMESTAMPWITHTIMEZONE(6).array()))
            .as("at");
    RenderedQuery q = RenderedQuery.of(() -> DSL.select(u, b, i, t, at));
    UUID id = UUID.fromString("0192f0c4-7d1e-7c2a-9b3e-5a1d2c3b4a59");
    OffsetDateTime when = OffsetDateTime.parse("2026-12-03T14:05:06.123456Z");
    Map<String, Object> values = new HashMap<>();
    values.put("u", new UUID[] {id, null});
    values.put("b", new Long[] {Long.MAX_VALUE, null});
    values.put("i", new Integer[] {-7, null});
    values.put("t", new String[] {"Robin \\ \"NULL\" {a,b}", null});
    values.put("at", new OffsetDateTime[] {when, null});

    Result<Record> read = uow.run(() -> q.fetch(PgTx.dsl(), values));

    assertThat(read).hasSize(2);
    assertThat(read.get(0).get(u)).isEqualTo(id);
    assertThat(read.get(0).get(b)).isEqualTo(Long.MAX_VALUE);
    assertThat(read.get(0).get(i)).isEqualTo(-7);
    assertThat(read.get(0).get(t)).isEqualTo("Robin \\ \"NULL\" {a,b}");
    assertThat(read.get(0).get(at).toInstant()).isEqualTo(when.toInstant());
    assertThat(read.get(1).intoList()).containsOnlyNulls();
  }

  @Test
  void runs_through_jdbc_without_rendering_or_executing_a_jooq_query() {
    RenderedQuery q =
        RenderedQuery.of(() -> DSL.select(ID, V).from(RQ).where(ID.le(DSL.param("upto", ID))));
    AtomicInteger rendered = new AtomicInteger();
    AtomicInteger executed = new AtomicInteger();
    ExecuteListener counting =
        new ExecuteListener() {
          @Override
          public void renderStart(ExecuteContext ctx) {
            rendered.incrementAndGet();
          }

          @Override
          public void executeStart(ExecuteContext ctx) {
            executed.incrementAndGet();
          }
        };

    List<String> names =
        uow.run(
            () -> {
              DSLContext listened = DSL.using(PgTx.dsl().configuration().derive(counting));
              return q.fetch(listened, Map.of("upto", 2)).map(r -> r.get(V));
            });

    assertThat(names).containsExactlyInAnyOrder("Alex", "Sam");
    assertThat(rendered).hasValue(0);
    assertThat(executed).hasValue(0);
  }

  @Test
  void its_records_hold_the_template_s_own_fields_so_a_lookup_is_by_identity() {
    // A record finds a field by identity first and otherwise compares names and tables, which
    // for a hot statement read column by column is a cost of its own.
    RenderedQuery select = RenderedQuery.of(() -> DSL.select(ID, V).from(RQ).where(ID.eq(1)));
    RenderedQuery write =
        RenderedQuery.of(
            () -> DSL.update(RQ).set(N, DSL.param("n", N)).where(ID.eq(1)).returning(ID, N));

    Record read = uow.run(() -> select.fetch(PgTx.dsl(), Map.of()).get(0));
    Record written = uow.run(() -> write.fetch(PgTx.dsl(), Map.of("n", 5)).get(0));

    assertThat(read.field(ID)).isSameAs(ID);
    assertThat(read.field(V)).isSameAs(V);
    assertThat(written.field(ID)).isSameAs(ID);
    assertThat(written.field(N)).isSameAs(N);
    assertThat(written.get(N)).isEqualTo(5);
  }

  @Test
  void refuses_a_template_whose_result_fields_are_unknown() {
    // select * of a table jOOQ does not know: its records would have no columns to read.
    assertThatThrownBy(() -> RenderedQuery.of(() -> DSL.select().from(RQ)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("result fields");
  }

  @Test
  void refuses_a_parameter_of_a_type_jdbc_cannot_bind_as_it_is() {
    Field<JSONB> doc = DSL.field(DSL.name("doc"), SQLDataType.JSONB);
    assertThatThrownBy(() -> RenderedQuery.of(() -> DSL.select(DSL.param("doc", doc)).from(RQ)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("doc")
        .hasMessageContaining("JSONB");
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
