package dev.bothy.bus.adapters.postgres;

import static dev.bothy.db.Tables.BUS_DEAD_LETTERS;

import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.app.DeadLetterRepository;
import dev.bothy.db.tables.records.BusDeadLettersRecord;
import dev.bothy.platform.pg.PgTx;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.impl.DSL;

/** The store of {@code bus_dead_letters}, through the current unit's transaction. */
public final class JooqDeadLetterRepository implements DeadLetterRepository {
  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqDeadLetterRepository() {}

  @Override
  public DeadLetter upsert(DeadLetter l) {
    OffsetDateTime deadAt = utc(l.deadAt());
    return PgTx.dsl()
        .insertInto(BUS_DEAD_LETTERS)
        .set(BUS_DEAD_LETTERS.ID, l.id())
        .set(BUS_DEAD_LETTERS.HANDLER, l.handler())
        .set(BUS_DEAD_LETTERS.DURABLE, l.durable())
        .set(BUS_DEAD_LETTERS.EVENT_ID, l.eventId())
        .set(BUS_DEAD_LETTERS.EVENT_SEQ, l.eventSeq())
        .set(BUS_DEAD_LETTERS.EVENT_TYPE, l.eventType())
        .set(BUS_DEAD_LETTERS.ERROR_KIND, l.errorKind())
        .set(BUS_DEAD_LETTERS.ERROR_CLASS, l.errorClass())
        .set(BUS_DEAD_LETTERS.ERROR_MESSAGE, l.errorMessage())
        .set(BUS_DEAD_LETTERS.DELIVERIES, l.deliveries())
        .set(BUS_DEAD_LETTERS.DEAD_AT, deadAt)
        .onConflict(BUS_DEAD_LETTERS.HANDLER, BUS_DEAD_LETTERS.EVENT_ID)
        .doUpdate()
        .set(BUS_DEAD_LETTERS.DURABLE, l.durable())
        .set(BUS_DEAD_LETTERS.ERROR_KIND, l.errorKind())
        .set(BUS_DEAD_LETTERS.ERROR_CLASS, l.errorClass())
        .set(BUS_DEAD_LETTERS.ERROR_MESSAGE, l.errorMessage())
        .set(BUS_DEAD_LETTERS.DELIVERIES, l.deliveries())
        .set(BUS_DEAD_LETTERS.DEAD_AT, deadAt)
        .setNull(BUS_DEAD_LETTERS.REPLAYED_AT)
        .returning()
        .fetchOne(JooqDeadLetterRepository::toLetter);
  }

  @Override
  public boolean openFor(String handler, UUID eventId) {
    return PgTx.dsl()
        .fetchExists(
            BUS_DEAD_LETTERS,
            BUS_DEAD_LETTERS
                .HANDLER
                .eq(handler)
                .and(BUS_DEAD_LETTERS.EVENT_ID.eq(eventId))
                .and(BUS_DEAD_LETTERS.REPLAYED_AT.isNull()));
  }

  @Override
  public Optional<DeadLetter> lock(UUID id) {
    return PgTx.dsl()
        .selectFrom(BUS_DEAD_LETTERS)
        .where(BUS_DEAD_LETTERS.ID.eq(id))
        .forUpdate()
        .fetchOptional(JooqDeadLetterRepository::toLetter);
  }

  @Override
  public Optional<DeadLetter> find(UUID id) {
    return PgTx.dsl()
        .selectFrom(BUS_DEAD_LETTERS)
        .where(BUS_DEAD_LETTERS.ID.eq(id))
        .fetchOptional(JooqDeadLetterRepository::toLetter);
  }

  @Override
  public List<DeadLetter> list(boolean includeReplayed, int limit) {
    return PgTx.dsl()
        .selectFrom(BUS_DEAD_LETTERS)
        .where(includeReplayed ? DSL.noCondition() : BUS_DEAD_LETTERS.REPLAYED_AT.isNull())
        .orderBy(BUS_DEAD_LETTERS.DEAD_AT.desc(), BUS_DEAD_LETTERS.ID.desc())
        .limit(limit)
        .fetch(JooqDeadLetterRepository::toLetter);
  }

  @Override
  public void markReplayed(UUID id, Instant at) {
    PgTx.dsl()
        .update(BUS_DEAD_LETTERS)
        .set(BUS_DEAD_LETTERS.REPLAYED_AT, utc(at))
        .set(BUS_DEAD_LETTERS.REPLAYS, BUS_DEAD_LETTERS.REPLAYS.plus(1))
        .where(BUS_DEAD_LETTERS.ID.eq(id))
        .execute();
  }

  @Override
  public int deleteOlderThan(Instant before, int limit) {
    return PgTx.dsl()
        .deleteFrom(BUS_DEAD_LETTERS)
        .where(
            BUS_DEAD_LETTERS.ID.in(
                DSL.select(BUS_DEAD_LETTERS.ID)
                    .from(BUS_DEAD_LETTERS)
                    .where(BUS_DEAD_LETTERS.DEAD_AT.lt(utc(before)))
                    .limit(limit)))
        .execute();
  }

  private static DeadLetter toLetter(BusDeadLettersRecord r) {
    return new DeadLetter(
        r.getId(),
        r.getHandler(),
        r.getDurable(),
        r.getEventId(),
        r.getEventSeq(),
        r.getEventType(),
        r.getErrorKind(),
        r.getErrorClass(),
        r.getErrorMessage(),
        r.getDeliveries(),
        r.getDeadAt().toInstant(),
        Optional.ofNullable(r.getReplayedAt()).map(OffsetDateTime::toInstant),
        r.getReplays());
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
