package dev.bothy.webhooks.adapters.postgres;

import static dev.bothy.db.Tables.WEBHOOK_ATTEMPTS;

import dev.bothy.db.tables.records.WebhookAttemptsRecord;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.AttemptKey;
import dev.bothy.webhooks.DeliveryOutcome;
import dev.bothy.webhooks.app.AttemptRepository;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The store of {@code webhook_attempts}, through the current unit's transaction. */
public final class JooqAttemptRepository implements AttemptRepository {
  // The attempts of a group commit (D-WP-3) in one statement rendered once (D-WB-2): one array per
  // column, unnested side by side, so the SQL is the same whatever the batch's size.
  private static final RenderedQuery INSERT_ALL =
      RenderedQuery.of(
          () ->
              DSL.insertInto(
                      WEBHOOK_ATTEMPTS,
                      WEBHOOK_ATTEMPTS.ID,
                      WEBHOOK_ATTEMPTS.SUBSCRIPTION_ID,
                      WEBHOOK_ATTEMPTS.EVENT_SEQ,
                      WEBHOOK_ATTEMPTS.EVENT_ID,
                      WEBHOOK_ATTEMPTS.ATTEMPT,
                      WEBHOOK_ATTEMPTS.ATTEMPTED_AT,
                      WEBHOOK_ATTEMPTS.DURATION_MS,
                      WEBHOOK_ATTEMPTS.OUTCOME,
                      WEBHOOK_ATTEMPTS.RESPONSE_STATUS,
                      WEBHOOK_ATTEMPTS.RESPONSE_BODY,
                      WEBHOOK_ATTEMPTS.ERROR_KIND)
                  .select(
                      DSL.select(
                          unnest("ids", UUID.class, SQLDataType.UUID),
                          unnest("subscriptions", UUID.class, SQLDataType.UUID),
                          unnest("seqs", Long.class, SQLDataType.BIGINT),
                          unnest("eventIds", UUID.class, SQLDataType.UUID),
                          unnest("attempts", Integer.class, SQLDataType.INTEGER),
                          unnest("at", OffsetDateTime.class, SQLDataType.TIMESTAMPWITHTIMEZONE(6)),
                          unnest("durations", Long.class, SQLDataType.BIGINT),
                          unnest("outcomes", String.class, SQLDataType.CLOB),
                          unnest("statuses", Integer.class, SQLDataType.INTEGER),
                          unnest("bodies", String.class, SQLDataType.CLOB),
                          unnest("errorKinds", String.class, SQLDataType.CLOB)))
                  .returning(WEBHOOK_ATTEMPTS.ID));

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqAttemptRepository() {}

  @Override
  public void insert(Attempt a) {
    insertAll(List.of(a));
  }

  @Override
  public void insertAll(List<Attempt> attempts) {
    if (attempts.isEmpty()) {
      return;
    }
    int n = attempts.size();
    UUID[] ids = new UUID[n];
    UUID[] subscriptions = new UUID[n];
    Long[] seqs = new Long[n];
    UUID[] eventIds = new UUID[n];
    Integer[] numbers = new Integer[n];
    OffsetDateTime[] at = new OffsetDateTime[n];
    Long[] durations = new Long[n];
    String[] outcomes = new String[n];
    Integer[] statuses = new Integer[n];
    String[] bodies = new String[n];
    String[] errorKinds = new String[n];
    for (int i = 0; i < n; i++) {
      Attempt a = attempts.get(i);
      ids[i] = a.id();
      subscriptions[i] = a.subscriptionId();
      seqs[i] = a.eventSeq();
      eventIds[i] = a.eventId();
      numbers[i] = a.attempt();
      at[i] = utc(a.attemptedAt());
      durations[i] = a.duration().toMillis();
      outcomes[i] = a.outcome().code();
      statuses[i] = a.responseStatus().isPresent() ? a.responseStatus().getAsInt() : null;
      bodies[i] = a.responseBody().orElse(null);
      errorKinds[i] = a.errorKind().orElse(null);
    }
    Map<String, Object> values = new HashMap<>();
    values.put("ids", ids);
    values.put("subscriptions", subscriptions);
    values.put("seqs", seqs);
    values.put("eventIds", eventIds);
    values.put("attempts", numbers);
    values.put("at", at);
    values.put("durations", durations);
    values.put("outcomes", outcomes);
    values.put("statuses", statuses);
    values.put("bodies", bodies);
    values.put("errorKinds", errorKinds);
    INSERT_ALL.countRows(PgTx.dsl(), values);
  }

  @Override
  public List<Attempt> list(
      UUID subscriptionId, OptionalLong eventSeq, Optional<AttemptKey> before, int limit) {
    Condition where = WEBHOOK_ATTEMPTS.SUBSCRIPTION_ID.eq(subscriptionId);
    if (eventSeq.isPresent()) {
      where = where.and(WEBHOOK_ATTEMPTS.EVENT_SEQ.eq(eventSeq.getAsLong()));
    }
    if (before.isPresent()) {
      where =
          where.and(
              DSL.row(WEBHOOK_ATTEMPTS.ATTEMPTED_AT, WEBHOOK_ATTEMPTS.ID)
                  .lt(utc(before.get().attemptedAt()), before.get().id()));
    }
    return PgTx.dsl()
        .selectFrom(WEBHOOK_ATTEMPTS)
        .where(where)
        .orderBy(WEBHOOK_ATTEMPTS.ATTEMPTED_AT.desc(), WEBHOOK_ATTEMPTS.ID.desc())
        .limit(limit)
        .fetch(JooqAttemptRepository::toAttempt);
  }

  @Override
  public long countUpTo(UUID subscriptionId, int cap) {
    Table<?> bounded =
        PgTx.dsl()
            .select(DSL.inline(1).as("one"))
            .from(WEBHOOK_ATTEMPTS)
            .where(WEBHOOK_ATTEMPTS.SUBSCRIPTION_ID.eq(subscriptionId))
            .limit(cap)
            .asTable("bounded");
    return PgTx.dsl().selectCount().from(bounded).fetchSingle().value1();
  }

  @Override
  public int deleteOlderThan(Instant before, int limit) {
    return PgTx.dsl()
        .deleteFrom(WEBHOOK_ATTEMPTS)
        .where(
            WEBHOOK_ATTEMPTS.ID.in(
                DSL.select(WEBHOOK_ATTEMPTS.ID)
                    .from(WEBHOOK_ATTEMPTS)
                    .where(WEBHOOK_ATTEMPTS.ATTEMPTED_AT.lt(utc(before)))
                    .limit(limit)))
        .execute();
  }

  private static Attempt toAttempt(WebhookAttemptsRecord r) {
    return new Attempt(
        r.getId(),
        r.getSubscriptionId(),
        r.getEventSeq(),
        r.getEventId(),
        r.getAttempt(),
        r.getAttemptedAt().toInstant(),
        Duration.ofMillis(r.getDurationMs()),
        DeliveryOutcome.fromCode(r.getOutcome()),
        r.getResponseStatus() == null ? OptionalInt.empty() : OptionalInt.of(r.getResponseStatus()),
        Optional.ofNullable(r.getResponseBody()),
        Optional.ofNullable(r.getErrorKind()));
  }

  // unnest(array) in the select list: several of them run in lockstep, one row per element.
  private static <T> Field<T> unnest(String name, Class<T> type, DataType<T> element) {
    return DSL.function("unnest", type, DSL.param(name, element.array()));
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
