package dev.bothy.webhooks.adapters.postgres;

import static dev.bothy.db.Tables.WEBHOOK_ATTEMPTS;

import dev.bothy.db.tables.records.WebhookAttemptsRecord;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.webhooks.Attempt;
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
import org.jooq.impl.DSL;

/** The store of {@code webhook_attempts}, through the current unit's transaction. */
public final class JooqAttemptRepository implements AttemptRepository {
  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqAttemptRepository() {}

  @Override
  public void insert(Attempt a) {
    PgTx.dsl()
        .insertInto(WEBHOOK_ATTEMPTS)
        .set(WEBHOOK_ATTEMPTS.ID, a.id())
        .set(WEBHOOK_ATTEMPTS.SUBSCRIPTION_ID, a.subscriptionId())
        .set(WEBHOOK_ATTEMPTS.EVENT_SEQ, a.eventSeq())
        .set(WEBHOOK_ATTEMPTS.EVENT_ID, a.eventId())
        .set(WEBHOOK_ATTEMPTS.ATTEMPT, a.attempt())
        .set(WEBHOOK_ATTEMPTS.ATTEMPTED_AT, utc(a.attemptedAt()))
        .set(WEBHOOK_ATTEMPTS.DURATION_MS, a.duration().toMillis())
        .set(WEBHOOK_ATTEMPTS.OUTCOME, a.outcome().code())
        .set(
            WEBHOOK_ATTEMPTS.RESPONSE_STATUS,
            a.responseStatus().isPresent() ? a.responseStatus().getAsInt() : null)
        .set(WEBHOOK_ATTEMPTS.RESPONSE_BODY, a.responseBody().orElse(null))
        .set(WEBHOOK_ATTEMPTS.ERROR_KIND, a.errorKind().orElse(null))
        .execute();
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
