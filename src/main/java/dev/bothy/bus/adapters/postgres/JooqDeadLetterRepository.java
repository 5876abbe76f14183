package dev.bothy.bus.adapters.postgres;

import static dev.bothy.db.Tables.BUS_DEAD_LETTERS;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.jsonbGetAttributeAsText;
import static org.jooq.impl.DSL.jsonbGetElement;
import static org.jooq.impl.DSL.jsonbObject;
import static org.jooq.impl.DSL.key;
import static org.jooq.impl.DSL.lateral;
import static org.jooq.impl.DSL.val;

import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetterError;
import dev.bothy.bus.DeadLetterKey;
import dev.bothy.bus.app.DeadLetterRepository;
import dev.bothy.db.tables.records.BusDeadLettersRecord;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record1;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The store of {@code bus_dead_letters}, through the current unit's transaction. */
public final class JooqDeadLetterRepository implements DeadLetterRepository {
  // Asked by dispatch whenever a claim fails (a redelivery, a parked pair): rendered once
  // (D-WF-1, D-NC-3).
  private static final RenderedQuery OPEN_FOR =
      RenderedQuery.of(
          () ->
              DSL.select(
                  DSL.field(
                      DSL.exists(
                          DSL.selectOne()
                              .from(BUS_DEAD_LETTERS)
                              .where(
                                  BUS_DEAD_LETTERS
                                      .HANDLER
                                      .eq(DSL.param("handler", BUS_DEAD_LETTERS.HANDLER))
                                      .and(
                                          BUS_DEAD_LETTERS.EVENT_ID.eq(
                                              DSL.param("eventId", BUS_DEAD_LETTERS.EVENT_ID)))
                                      .and(BUS_DEAD_LETTERS.REPLAYED_AT.isNull()))))));

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqDeadLetterRepository() {}

  @Override
  public DeadLetter upsert(DeadLetter l) {
    OffsetDateTime deadAt = utc(l.deadAt());
    Field<JSONB> death =
        jsonbObject(
            key("at").value(val(deadAt)),
            key("deliveries").value(val(l.deliveries())),
            key("kind").value(val(l.errorKind())),
            key("error").value(val(l.errorClass())),
            key("message").value(val(l.errorMessage())));
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
        .set(BUS_DEAD_LETTERS.ERRORS, DSL.function("jsonb_build_array", SQLDataType.JSONB, death))
        .onConflict(BUS_DEAD_LETTERS.HANDLER, BUS_DEAD_LETTERS.EVENT_ID)
        .doUpdate()
        .set(BUS_DEAD_LETTERS.DURABLE, l.durable())
        .set(BUS_DEAD_LETTERS.ERROR_KIND, l.errorKind())
        .set(BUS_DEAD_LETTERS.ERROR_CLASS, l.errorClass())
        .set(BUS_DEAD_LETTERS.ERROR_MESSAGE, l.errorMessage())
        .set(BUS_DEAD_LETTERS.DELIVERIES, l.deliveries())
        .set(BUS_DEAD_LETTERS.DEAD_AT, deadAt)
        .setNull(BUS_DEAD_LETTERS.REPLAYED_AT)
        // jsonb_insert(errors, '{-1}', death, true): the death goes after the last entry.
        .set(
            BUS_DEAD_LETTERS.ERRORS,
            DSL.function(
                "jsonb_insert",
                SQLDataType.JSONB,
                BUS_DEAD_LETTERS.ERRORS,
                val(new String[] {"-1"}),
                death,
                inline(true)))
        .returning()
        .fetchOne(JooqDeadLetterRepository::toLetter);
  }

  @Override
  public boolean openFor(String handler, UUID eventId) {
    return OPEN_FOR.fetch(PgTx.dsl(), Map.of("handler", handler, "eventId", eventId)).stream()
        .anyMatch(r -> Boolean.TRUE.equals(r.get(0, Boolean.class)));
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
  public List<DeadLetter> page(boolean includeReplayed, Optional<DeadLetterKey> before, int limit) {
    Condition where = open(includeReplayed);
    if (before.isPresent()) {
      where =
          where.and(
              DSL.row(BUS_DEAD_LETTERS.DEAD_AT, BUS_DEAD_LETTERS.ID)
                  .lt(utc(before.get().deadAt()), before.get().id()));
    }
    return PgTx.dsl()
        .selectFrom(BUS_DEAD_LETTERS)
        .where(where)
        .orderBy(BUS_DEAD_LETTERS.DEAD_AT.desc(), BUS_DEAD_LETTERS.ID.desc())
        .limit(limit)
        .fetch(JooqDeadLetterRepository::toLetter);
  }

  @Override
  public long countUpTo(boolean includeReplayed, int cap) {
    Table<?> bounded =
        PgTx.dsl()
            .select(inline(1).as("one"))
            .from(BUS_DEAD_LETTERS)
            .where(open(includeReplayed))
            .limit(cap)
            .asTable("bounded");
    return PgTx.dsl().selectCount().from(bounded).fetchSingle().value1();
  }

  // The entries are read by PostgreSQL, one row per element in array order, so the module needs no
  // JSON library: element k of errors for k in 0 .. jsonb_array_length(errors) - 1.
  @Override
  public Optional<List<DeadLetterError>> errors(UUID id) {
    if (!PgTx.dsl().fetchExists(BUS_DEAD_LETTERS, BUS_DEAD_LETTERS.ID.eq(id))) {
      return Optional.empty();
    }
    Table<Record1<Integer>> positions =
        lateral(
                DSL.generateSeries(
                    inline(0),
                    DSL.function("jsonb_array_length", Integer.class, BUS_DEAD_LETTERS.ERRORS)
                        .minus(1)))
            .as("e", "k");
    Field<Integer> k = positions.field(0, Integer.class);
    Field<JSONB> entry = jsonbGetElement(BUS_DEAD_LETTERS.ERRORS, k);
    List<DeadLetterError> errors = new ArrayList<>();
    PgTx.dsl()
        .select(
            jsonbGetAttributeAsText(entry, "at").cast(SQLDataType.TIMESTAMPWITHTIMEZONE),
            jsonbGetAttributeAsText(entry, "deliveries").cast(SQLDataType.INTEGER),
            jsonbGetAttributeAsText(entry, "kind"),
            jsonbGetAttributeAsText(entry, "error"),
            jsonbGetAttributeAsText(entry, "message"))
        .from(BUS_DEAD_LETTERS)
        .crossJoin(positions)
        .where(BUS_DEAD_LETTERS.ID.eq(id))
        .orderBy(k)
        .forEach(
            e ->
                errors.add(
                    new DeadLetterError(
                        e.value1().toInstant(),
                        e.value2(),
                        e.value3(),
                        Optional.ofNullable(e.value4()).orElse(""),
                        Optional.ofNullable(e.value5()).orElse(""))));
    return Optional.of(errors);
  }

  private static Condition open(boolean includeReplayed) {
    return includeReplayed ? DSL.noCondition() : BUS_DEAD_LETTERS.REPLAYED_AT.isNull();
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
