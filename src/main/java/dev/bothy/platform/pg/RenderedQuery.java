package dev.bothy.platform.pg;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.ResultQuery;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.impl.DSL;

/**
 * A statement built with the typed jOOQ DSL, rendered to SQL once and run through JDBC, for the
 * hottest statements of a store (ADR 0021, D-WF-1, D-NC-7, D-BD-7). jOOQ renders a query's tree on
 * every execution, which the profile of the webhooks benchmark put at about half of the process's
 * CPU; and even a plain SQL statement of the rendered text is parsed for its bind markers and bound
 * through jOOQ's bindings at every execution, which a profile of the bus-dispatch benchmark's log
 * transport put at 251 of a worker's 847 samples (D-BD-7). So jOOQ serves as the SQL builder and
 * the reader of result rows only: the template is an ordinary jOOQ query whose varying values are
 * named parameters ({@link DSL#param(String, org.jooq.Field)}); its constants stay unnamed. Each
 * execution converts the named values through their parameter's converter, binds them to a {@link
 * PreparedStatement} of the cached SQL on the unit's connection, and reads the rows into records of
 * the template's fields (their bindings and converters apply).
 *
 * <p>Only for a statement whose SQL text does not depend on its values: a list of values goes in
 * one array parameter ({@code = any(?)}), not in an {@code IN} list. Only for a statement with a
 * result: a select, or a write with a {@code RETURNING} clause whose rows the caller counts. Only
 * parameters JDBC binds as they are: text, numbers, booleans, {@code uuid}, {@code timestamptz},
 * and arrays of those (bound as an array literal that the rendered SQL casts to its type); a
 * template with another parameter type ({@code jsonb}, a user type) is refused when it is rendered.
 * Thread-safe and immutable; keep one per statement in a {@code static final} field.
 */
public final class RenderedQuery {
  private static final DSLContext RENDERER = DSL.using(SQLDialect.POSTGRES);

  /** The Java types JDBC binds as they are, after the parameter's converter. */
  private static final Set<Class<?>> BINDABLE =
      Set.of(
          String.class,
          Integer.class,
          Long.class,
          Short.class,
          Boolean.class,
          BigDecimal.class,
          Double.class,
          UUID.class,
          OffsetDateTime.class);

  private final String sql;
  // One entry per bind position: the name of a named parameter, or null for a constant.
  private final List<String> names;
  private final List<Param<?>> params;
  // How many names the template has; every execution checks its values against it.
  private final long namedCount;
  private final Field<?>[] fields;

  private RenderedQuery(Query template) {
    if (!(template instanceof ResultQuery<?> result)) {
      throw new IllegalArgumentException(
          "a rendered statement needs a result: give a write a RETURNING clause and count its rows");
    }
    this.sql = RENDERER.render(template);
    // A select's own select list, not fields(), which a select answers with the fields of itself
    // as a derived table: a record finds a field by identity first, and with the derived table's
    // fields every get(EVENT_LOG.SEQ) went through the slow comparison by name and table.
    this.fields =
        template instanceof Select<?> select
            ? select.getSelect().toArray(Field<?>[]::new)
            : result.fields();
    if (fields.length == 0) {
      throw new IllegalArgumentException(
          "the template's result fields are unknown (select * of a table jOOQ does not know, or"
              + " plain SQL): name the fields it returns");
    }
    this.names = new ArrayList<>();
    this.params = new ArrayList<>();
    for (Param<?> p : RENDERER.extractParams(template).values()) {
      if (p.isInline()) {
        continue;
      }
      String name = p.getParamName();
      names.add(name == null || isIndex(name) ? null : name);
      params.add(p);
      requireBindable(p);
    }
    this.namedCount = names.stream().filter(Objects::nonNull).distinct().count();
    if (RENDERER.extractBindValues(template).size() != params.size()) {
      throw new IllegalArgumentException(
          "a named parameter is used more than once; give each use its own name");
    }
  }

  /**
   * Renders a template once.
   *
   * @param template builds the statement; called once, here
   * @return the rendered statement
   * @throws IllegalArgumentException when the template uses a named parameter more than once, has
   *     no result (a write without {@code RETURNING}) or no known result fields, or has a parameter
   *     of a type JDBC does not bind as it is
   */
  public static RenderedQuery of(Supplier<? extends Query> template) {
    return new RenderedQuery(Objects.requireNonNull(template.get(), "template"));
  }

  /**
   * The SQL as rendered, with a {@code ?} per bind value; for tests and logs of statement shapes.
   *
   * @return the SQL text
   */
  public String sql() {
    return sql;
  }

  /**
   * Runs the statement with these values bound and reads every row it returns into a record of the
   * template's result fields, so {@code record.get(FIELD)} and {@code result.into(TABLE)} work as
   * on jOOQ's own fetch.
   *
   * @param dsl the unit's context ({@link PgTx#dsl()}); its connection runs the statement and its
   *     configuration reads the rows
   * @param values a value for every named parameter of the template, by name
   * @return the rows, in the order the statement returned them
   * @throws IllegalArgumentException when a named parameter has no value or a value names none
   * @throws org.jooq.exception.DataAccessException when the statement fails (its SQLException is
   *     the cause, as on jOOQ's own path)
   */
  public Result<Record> fetch(DSLContext dsl, Map<String, ?> values) {
    Object[] jdbc = jdbcValues(values);
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement statement = prepare(connection, jdbc);
              ResultSet rows = statement.executeQuery()) {
            return dsl.fetch(rows, fields);
          }
        });
  }

  /**
   * Runs the statement with these values bound and returns how many rows it returned, without
   * reading them: for a write whose caller only counts (the bus delivery claim, once per event and
   * handler, D-NC-7).
   *
   * @param dsl the unit's context ({@link PgTx#dsl()}); its connection runs the statement
   * @param values a value for every named parameter of the template, by name
   * @return the number of rows the statement returned
   * @throws IllegalArgumentException when a named parameter has no value or a value names none
   * @throws org.jooq.exception.DataAccessException when the statement fails (its SQLException is
   *     the cause, as on jOOQ's own path)
   */
  public int countRows(DSLContext dsl, Map<String, ?> values) {
    Object[] jdbc = jdbcValues(values);
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement statement = prepare(connection, jdbc);
              ResultSet rows = statement.executeQuery()) {
            int n = 0;
            while (rows.next()) {
              n++;
            }
            return n;
          }
        });
  }

  private PreparedStatement prepare(Connection connection, Object[] jdbc) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      for (int i = 0; i < jdbc.length; i++) {
        if (jdbc[i] instanceof ArrayText literal) {
          // The rendered SQL casts it (cast(? as uuid[])), so text is what it needs.
          statement.setString(i + 1, literal.text());
        } else {
          statement.setObject(i + 1, jdbc[i]);
        }
      }
      return statement;
    } catch (SQLException | RuntimeException e) {
      try {
        statement.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** The bind values in position order, converted to what JDBC binds. */
  private Object[] jdbcValues(Map<String, ?> values) {
    Object[] out = new Object[params.size()];
    int named = 0;
    for (int i = 0; i < out.length; i++) {
      String name = names.get(i);
      Param<?> p = params.get(i);
      Object value;
      if (name == null) {
        value = p.getValue();
      } else {
        if (!values.containsKey(name)) {
          throw new IllegalArgumentException("no value for the parameter " + name);
        }
        named++;
        value = values.get(name);
      }
      out[i] = jdbcValue(p.getDataType(), value);
    }
    if (values.size() != namedCount || named < namedCount) {
      throw new IllegalArgumentException(
          "values for parameters the statement does not have: " + values.keySet());
    }
    return out;
  }

  private static <T> Object jdbcValue(DataType<T> type, Object value) {
    // Through the parameter's data type, as jOOQ's own binding would: a user type becomes its
    // database type (an Instant-typed field's converter, say), and a wrong type fails here.
    Object database = type.getConverter().to(type.convert(value));
    if (database == null || !type.isArray()) {
      return database;
    }
    PgArrayLiteral literal = new PgArrayLiteral(((Object[]) database).length);
    for (Object element : (Object[]) database) {
      literal.add(element == null ? null : element.toString());
    }
    return new ArrayText(literal.toString());
  }

  private static void requireBindable(Param<?> p) {
    DataType<?> type = p.getDataType();
    DataType<?> element = type.isArray() ? type.getArrayComponentDataType() : type;
    Class<?> bound = element.getConverter().fromType();
    if (!BINDABLE.contains(bound)) {
      throw new IllegalArgumentException(
          "the parameter "
              + (p.getParamName() == null ? "(unnamed)" : p.getParamName())
              + " has the type "
              + bound.getSimpleName()
              + ", which this statement cannot bind through JDBC as it is; use the typed DSL");
    }
  }

  /** An array's text form, bound as text; the statement casts it to the array's type. */
  private record ArrayText(String text) {}

  private static boolean isIndex(String name) {
    return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
  }
}
