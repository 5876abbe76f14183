package dev.bothy.webhooks.adapters.postgres;

import static dev.bothy.db.Tables.WEBHOOK_ATTEMPTS;

import dev.bothy.db.tables.records.WebhookAttemptsRecord;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.AttemptKey;
import dev.bothy.webhooks.DeliveryOutcome;
import dev.bothy.webhooks.app.AttemptRepository;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Table;
import org.jooq.impl.DSL;

/** The store of {@code webhook_attempts}, through the current unit's transaction. */
public final class JooqAttemptRepository implements AttemptRepository {
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
    var insert =
        PgTx.dsl()
            .insertInto(
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
                WEBHOOK_ATTEMPTS.ERROR_KIND);
    for (Attempt a : attempts) {
      insert =
          insert.values(
              a.id(),
              a.subscriptionId(),
              a.eventSeq(),
              a.eventId(),
              a.attempt(),
              utc(a.attemptedAt()),
              a.duration().toMillis(),
              a.outcome().code(),
              a.responseStatus().isPresent() ? a.responseStatus().getAsInt() : null,
              a.responseBody().orElse(null),
              a.errorKind().orElse(null));
    }
    insert.execute();
  }

  @Override
  public List<Attempt> list(UUID subscriptionId, OptionalLong eventSeq, int limit) {
    Condition seq =
        eventSeq.isPresent()
            ? WEBHOOK_ATTEMPTS.EVENT_SEQ.eq(eventSeq.getAsLong())
            : DSL.noCondition();
    return PgTx.dsl()
        .selectFrom(WEBHOOK_ATTEMPTS)
        .where(WEBHOOK_ATTEMPTS.SUBSCRIPTION_ID.eq(subscriptionId))
        .and(seq)
        .orderBy(WEBHOOK_ATTEMPTS.ATTEMPTED_AT.desc(), WEBHOOK_ATTEMPTS.ID.desc())
        .limit(limit)
        .fetch(JooqAttemptRepository::toAttempt);
  }

  @Override
  public List<Attempt> page(UUID subscriptionId, Optional<AttemptKey> before, int limit) {
    Condition where = WEBHOOK_ATTEMPTS.SUBSCRIPTION_ID.eq(subscriptionId);
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

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
