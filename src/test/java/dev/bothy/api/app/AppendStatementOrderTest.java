package dev.bothy.api.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.api.adapters.postgres.JooqIdempotencyRepository;
import dev.bothy.kernel.Clock;
import dev.bothy.sync.AppendReceipt;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The statements of one keyed append, as the driver sees them: the {@code event_seq} counter's
 * {@code UPDATE} (the lock that serializes every append) comes after every other write of the unit,
 * the idempotency key included; only the insert of the numbered events (with its {@code pg_notify})
 * follows it, then the commit (M1-15: locking the counter is the last step before commit).
 */
class AppendStatementOrderTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private final List<String> statements = new CopyOnWriteArrayList<>();

  @Test
  void the_event_seq_update_is_the_last_step_of_a_keyed_append() {
    EventLogFixture log =
        new EventLogFixture(recording(PG.app()), Clock.system(), 64 * 1024, (n, nanos) -> {}, 2);
    AppendEvents append =
        new AppendEvents(
            log.uow,
            log.appender,
            log.log,
            new JooqIdempotencyRepository(),
            Clock.system(),
            Duration.ofHours(24));
    log.append(UUID.randomUUID(), 1); // the first unit freezes the hooks and warms the pool
    statements.clear();

    AppendEvents.Answer answer =
        append.append(
            new AppendEvents.Command(
                "alex",
                Optional.of("key-" + UUID.randomUUID()),
                new byte[32],
                List.of(EventLogFixture.drafts(UUID.randomUUID(), 2)),
                AppendStatementOrderTest::render));

    assertThat(answer).isInstanceOf(AppendEvents.Answer.Created.class);
    List<String> unit = List.copyOf(statements);
    int counter = indexOf(unit, "update", "sequence_counters");
    int key = indexOf(unit, "insert into", "api_idempotency_keys");
    assertThat(counter).as("the event_seq update in %s", unit).isNotNegative();
    assertThat(key).as("the idempotency key insert in %s", unit).isNotNegative();
    assertThat(key).as("the key is written before the counter lock: %s", unit).isLessThan(counter);
    List<String> afterLock = unit.subList(counter + 1, unit.size());
    assertThat(afterLock).as("after the lock: %s", afterLock).hasSize(2);
    assertThat(afterLock.get(0))
        .contains("insert into")
        .contains("event_log")
        .contains("pg_notify");
    assertThat(afterLock.get(1)).isEqualTo("COMMIT");
  }

  @Test
  void a_retry_renders_the_first_response_from_the_log_and_a_row_of_an_earlier_version_as_stored() {
    EventLogFixture log = new EventLogFixture(PG.app());
    AppendEvents append =
        new AppendEvents(
            log.uow,
            log.appender,
            log.log,
            new JooqIdempotencyRepository(),
            Clock.system(),
            Duration.ofHours(24));
    log.append(UUID.randomUUID(), 3); // numbers before the keyed unit: the replay reads past them
    AppendEvents.Command command =
        new AppendEvents.Command(
            "alex",
            Optional.of("key-" + UUID.randomUUID()),
            new byte[32],
            List.of(EventLogFixture.drafts(UUID.randomUUID(), 2)),
            AppendStatementOrderTest::render);
    String first = ((AppendEvents.Answer.Created) append.append(command)).body();
    log.append(UUID.randomUUID(), 2); // and after it
    assertThat(append.append(command)).isEqualTo(new AppendEvents.Answer.Replayed(201, first));

    String legacyKey = "key-" + UUID.randomUUID();
    log.uow.run(
        () -> {
          new JooqIdempotencyRepository()
              .insert(
                  new StoredResponse(
                      "alex",
                      legacyKey,
                      new byte[32],
                      201,
                      "{\"events\":[]}",
                      Clock.system().now()));
          return null;
        });
    assertThat(
            append.append(
                new AppendEvents.Command(
                    "alex",
                    Optional.of(legacyKey),
                    new byte[32],
                    List.of(EventLogFixture.drafts(UUID.randomUUID(), 1)),
                    AppendStatementOrderTest::render)))
        .isEqualTo(new AppendEvents.Answer.Replayed(201, "{\"events\":[]}"));
  }

  private static String render(AppendReceipt receipt) {
    return "{\"ids\":" + receipt.ids() + ",\"seqs\":" + receipt.seqs() + "}";
  }

  private static int indexOf(List<String> unit, String verb, String table) {
    for (int i = 0; i < unit.size(); i++) {
      String s = unit.get(i);
      if (s.startsWith(verb) && s.contains(table)) {
        return i;
      }
    }
    return -1;
  }

  /** A data source whose connections record every statement they send and every commit. */
  private DataSource recording(DataSource target) {
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(target, method, args);
              return result instanceof Connection c ? connection(c) : result;
            });
  }

  private Connection connection(Connection target) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("commit")) {
            statements.add("COMMIT");
          } else if (name.equals("rollback") && (args == null || args.length == 0)) {
            statements.add("ROLLBACK");
          } else if ((name.equals("prepareStatement") || name.equals("prepareCall"))
              && args[0] instanceof String sql) {
            statements.add(normal(sql));
          }
          Object result = invoke(target, method, args);
          if (result instanceof Statement st && !(result instanceof PreparedStatement)) {
            return statement(st);
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  private Statement statement(Statement target) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getName().startsWith("execute")
              && args != null
              && args[0] instanceof String sql) {
            statements.add(normal(sql));
          }
          return invoke(target, method, args);
        };
    return (Statement)
        Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {Statement.class}, handler);
  }

  private static String normal(String sql) {
    return sql.replace("\"", "").replaceAll("\\s+", " ").trim().toLowerCase(Locale.ROOT);
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
