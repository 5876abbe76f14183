package dev.bothy.platform.pg;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.ResultQuery;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * A statement built with the typed jOOQ DSL and rendered to SQL once, for the hottest statements of
 * a store (ADR 0021, D-WF-1): jOOQ renders a query's tree on every execution, which the profile of
 * the webhooks benchmark put at about half of the process's CPU. The template is an ordinary jOOQ
 * query whose varying values are named parameters ({@link DSL#param(String, org.jooq.Field)}); its
 * constants stay unnamed. Each execution binds the named values, typed by their parameter's data
 * type (so converters and bindings of generated fields apply), and runs the cached SQL on the
 * unit's context.
 *
 * <p>Only for a statement whose SQL text does not depend on its values: a list of values goes in
 * one array parameter ({@code = any(?)}), not in an {@code IN} list. Only for a statement with a
 * result: a select, or a write with a {@code RETURNING} clause whose rows the caller counts. jOOQ
 * classifies a plain SQL statement without a result by rendering it again and matching regular
 * expressions against it at every execution ({@code DefaultExecuteContext.type}), which cost about
 * as much as the rendering saved (a JFR profile of the bus-dispatch benchmark, 2026-12-03).
 * Thread-safe and immutable; keep one per statement in a {@code static final} field.
 */
public final class RenderedQuery {
  private static final DSLContext RENDERER = DSL.using(SQLDialect.POSTGRES);

  private final String sql;
  // One entry per bind position: the name of a named parameter, or null for a constant.
  private final List<String> names;
  private final List<Param<?>> params;
  private final boolean hasArray;

  private RenderedQuery(Query template) {
    if (!(template instanceof ResultQuery)) {
      throw new IllegalArgumentException(
          "a rendered statement needs a result: give a write a RETURNING clause and count its rows");
    }
    this.sql = RENDERER.render(template);
    this.names = new ArrayList<>();
    this.params = new ArrayList<>();
    for (Param<?> p : RENDERER.extractParams(template).values()) {
      if (p.isInline()) {
        continue;
      }
      String name = p.getParamName();
      names.add(name == null || isIndex(name) ? null : name);
      params.add(p);
    }
    this.hasArray = params.stream().anyMatch(p -> p.getDataType().isArray());
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
   * @throws IllegalArgumentException when the template uses a named parameter more than once, or
   *     has no result (a write without {@code RETURNING})
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
   * The statement on the given context with these values bound, for statements with a result;
   * {@code coerce} its result to the template's fields to read typed records.
   *
   * @param dsl the unit's context ({@link PgTx#dsl()})
   * @param values a value for every named parameter of the template, by name
   * @return the query, ready to fetch
   * @throws IllegalArgumentException when a named parameter has no value or a value names none
   */
  public ResultQuery<org.jooq.Record> resultQuery(DSLContext dsl, Map<String, ?> values) {
    return dsl.resultQuery(sql, binds(values));
  }

  /**
   * Runs the statement through JDBC on the context's connection, jOOQ serving as the SQL builder
   * only, and returns how many rows it returned. For the hottest write of all, the bus delivery
   * claim (once per event and handler): jOOQ's execution of a plain SQL statement (it parses the
   * text for its bind markers at every execution, then builds its execute context and result) was
   * about a third of the dispatching thread's CPU (D-NC-7). Each value goes through its parameter's
   * converter to {@link PreparedStatement#setObject}, which binds scalars as they are (text,
   * numbers, uuid, timestamptz); so this refuses a template with an array parameter.
   *
   * @param dsl the unit's context ({@link PgTx#dsl()}); its connection runs the statement
   * @param values a value for every named parameter of the template, by name
   * @return the number of rows the statement returned
   * @throws IllegalArgumentException when a named parameter has no value or a value names none
   * @throws IllegalStateException when the template has an array parameter
   * @throws org.jooq.exception.DataAccessException when the statement fails (its SQLException is
   *     the cause, as on jOOQ's own path)
   */
  public int countRows(DSLContext dsl, Map<String, ?> values) {
    if (hasArray) {
      throw new IllegalStateException(
          "countRows binds scalar parameters only and this statement has an array parameter;"
              + " use resultQuery");
    }
    Object[] binds = binds(values);
    Object[] jdbc = new Object[binds.length];
    for (int i = 0; i < binds.length; i++) {
      jdbc[i] = databaseValue((Param<?>) binds[i]);
    }
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < jdbc.length; i++) {
              statement.setObject(i + 1, jdbc[i]);
            }
            int rows = 0;
            try (ResultSet result = statement.executeQuery()) {
              while (result.next()) {
                rows++;
              }
            }
            return rows;
          }
        });
  }

  private static <U> Object databaseValue(Param<U> param) {
    return param.getDataType().getConverter().to(param.getValue());
  }

  private Object[] binds(Map<String, ?> values) {
    Object[] out = new Object[params.size()];
    int named = 0;
    for (int i = 0; i < out.length; i++) {
      String name = names.get(i);
      Param<?> p = params.get(i);
      if (name == null) {
        out[i] = p;
        continue;
      }
      if (!values.containsKey(name)) {
        throw new IllegalArgumentException("no value for the parameter " + name);
      }
      named++;
      out[i] = DSL.val(values.get(name), p.getDataType());
    }
    long distinct = names.stream().filter(Objects::nonNull).distinct().count();
    if (values.size() != distinct || named < distinct) {
      throw new IllegalArgumentException(
          "values for parameters the statement does not have: " + values.keySet());
    }
    return out;
  }

  private static boolean isIndex(String name) {
    return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
  }
}
