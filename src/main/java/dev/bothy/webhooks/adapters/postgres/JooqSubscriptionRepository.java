package dev.bothy.webhooks.adapters.postgres;

import static dev.bothy.db.Tables.WEBHOOK_SUBSCRIPTIONS;

import dev.bothy.db.tables.records.WebhookSubscriptionsRecord;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionState;
import dev.bothy.webhooks.app.StoredSubscription;
import dev.bothy.webhooks.app.SubscriptionRepository;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.Result;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The store of {@code webhook_subscriptions}, through the current unit's transaction. */
public final class JooqSubscriptionRepository implements SubscriptionRepository {
  // The statements of every delivery, rendered once (D-WF-1).
  private static final RenderedQuery FIND =
      RenderedQuery.of(
          () ->
              DSL.selectFrom(WEBHOOK_SUBSCRIPTIONS)
                  .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(DSL.param("id", WEBHOOK_SUBSCRIPTIONS.ID))));

  private static final RenderedQuery FIND_ALL =
      RenderedQuery.of(
          () ->
              DSL.selectFrom(WEBHOOK_SUBSCRIPTIONS)
                  .where(
                      WEBHOOK_SUBSCRIPTIONS.ID.eq(
                          DSL.any(DSL.param("ids", SQLDataType.UUID.array())))));

  // The worker consumer webhooks' match, once per event type and round, rendered once (D-BD-9).
  // FOR KEY SHARE: it waits for every FOR UPDATE (operators' verbs, an ordered chain), but not for
  // the updates of a delivery's rate claim and success (D-WP-4).
  private static final RenderedQuery LOCK_MATCHING =
      RenderedQuery.of(
          () ->
              DSL.selectFrom(WEBHOOK_SUBSCRIPTIONS)
                  .where(
                      WEBHOOK_SUBSCRIPTIONS.EVENT_TYPES.contains(
                          DSL.param("types", WEBHOOK_SUBSCRIPTIONS.EVENT_TYPES)))
                  .orderBy(WEBHOOK_SUBSCRIPTIONS.ID)
                  .forKeyShare());

  // ORDER BY runs below the row locks, so the rows are locked in id order.
  private static final RenderedQuery LOCK_ALL =
      RenderedQuery.of(
          () ->
              DSL.select(WEBHOOK_SUBSCRIPTIONS.ID)
                  .from(WEBHOOK_SUBSCRIPTIONS)
                  .where(
                      WEBHOOK_SUBSCRIPTIONS.ID.eq(
                          DSL.any(DSL.param("ids", SQLDataType.UUID.array()))))
                  .orderBy(WEBHOOK_SUBSCRIPTIONS.ID)
                  .forNoKeyUpdate());

  private static final RenderedQuery DELIVERED_ALL =
      RenderedQuery.of(
          () -> {
            Table<Record2<UUID, Long>> delivered =
                DSL.select(
                        DSL.function(
                                "unnest", UUID.class, DSL.param("ids", SQLDataType.UUID.array()))
                            .as("id"),
                        DSL.function(
                                "unnest", Long.class, DSL.param("seqs", SQLDataType.BIGINT.array()))
                            .as("seq"))
                    .asTable("delivered");
            Field<UUID> deliveredId = delivered.field("id", UUID.class);
            Field<Long> deliveredSeq = delivered.field("seq", Long.class);
            return DSL.update(WEBHOOK_SUBSCRIPTIONS)
                .setNull(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE)
                .set(
                    WEBHOOK_SUBSCRIPTIONS.LAST_DELIVERED_SEQ,
                    DSL.greatest(WEBHOOK_SUBSCRIPTIONS.LAST_DELIVERED_SEQ, deliveredSeq))
                .set(
                    WEBHOOK_SUBSCRIPTIONS.UPDATED_AT,
                    DSL.param("now", WEBHOOK_SUBSCRIPTIONS.UPDATED_AT))
                .from(delivered)
                .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(deliveredId))
                .returning(WEBHOOK_SUBSCRIPTIONS.ID);
          });

  private static final Duration RATE_WINDOW = Duration.ofSeconds(1);

  // The rate claim of a batch of deliveries (D-WB-1), rendered once like the other statements of
  // every delivery (D-WF-1). A window that ended (or starts after now) is replaced by one starting
  // now; each use of a value has its own name, as RenderedQuery asks.
  private static final RenderedQuery CLAIM =
      RenderedQuery.of(
          () ->
              DSL.update(WEBHOOK_SUBSCRIPTIONS)
                  .set(
                      WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_STARTED_AT,
                      DSL.when(
                              newWindow("Started"),
                              DSL.param("nowStarted", WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_STARTED_AT))
                          .otherwise(WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_STARTED_AT))
                  .set(
                      WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_COUNT,
                      DSL.when(
                              newWindow("Count"),
                              DSL.param("wantedNew", WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_COUNT))
                          .otherwise(
                              WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_COUNT.plus(
                                  DSL.param(
                                      "wantedAdded", WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_COUNT))))
                  .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(DSL.param("id", WEBHOOK_SUBSCRIPTIONS.ID)))
                  .returningResult(
                      WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_STARTED_AT,
                      WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_COUNT));

  /** Whether the row's window has ended at now (or starts after it): named per use. */
  private static Condition newWindow(String use) {
    Field<OffsetDateTime> started = WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_STARTED_AT;
    return started
        .isNull()
        .or(started.le(DSL.param("floor" + use, started)))
        .or(started.gt(DSL.param("ceiling" + use, started)));
  }

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqSubscriptionRepository() {}

  @Override
  public void insert(StoredSubscription s) {
    Subscription v = s.view();
    PgTx.dsl()
        .insertInto(WEBHOOK_SUBSCRIPTIONS)
        .set(WEBHOOK_SUBSCRIPTIONS.ID, v.id())
        .set(WEBHOOK_SUBSCRIPTIONS.URL, v.url())
        .set(WEBHOOK_SUBSCRIPTIONS.EVENT_TYPES, v.eventTypes().toArray(String[]::new))
        .set(WEBHOOK_SUBSCRIPTIONS.SECRET, s.secret())
        .set(WEBHOOK_SUBSCRIPTIONS.ORDERED, v.ordered())
        .set(WEBHOOK_SUBSCRIPTIONS.RATE_LIMIT, v.rateLimit())
        .set(WEBHOOK_SUBSCRIPTIONS.STATE, v.state().code())
        .set(
            WEBHOOK_SUBSCRIPTIONS.DISABLED_REASON,
            v.disabledReason().map(DisabledReason::code).orElse(null))
        .set(WEBHOOK_SUBSCRIPTIONS.LAST_DELIVERED_SEQ, v.lastDeliveredSeq())
        .set(WEBHOOK_SUBSCRIPTIONS.GENERATION, s.generation())
        .set(WEBHOOK_SUBSCRIPTIONS.CREATED_AT, utc(v.createdAt()))
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(v.updatedAt()))
        .execute();
  }

  @Override
  public Optional<StoredSubscription> find(UUID id) {
    return FIND.fetch(PgTx.dsl(), Map.of("id", id)).into(WEBHOOK_SUBSCRIPTIONS).stream()
        .findFirst()
        .map(JooqSubscriptionRepository::toStored);
  }

  @Override
  public Map<UUID, StoredSubscription> findAll(Collection<UUID> ids) {
    Map<UUID, StoredSubscription> found = new HashMap<>();
    if (ids.isEmpty()) {
      return found;
    }
    FIND_ALL
        .fetch(PgTx.dsl(), Map.of("ids", ids.toArray(UUID[]::new)))
        .into(WEBHOOK_SUBSCRIPTIONS)
        .forEach(r -> found.put(r.getId(), toStored(r)));
    return found;
  }

  @Override
  public Optional<StoredSubscription> lock(UUID id) {
    return PgTx.dsl()
        .selectFrom(WEBHOOK_SUBSCRIPTIONS)
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .forUpdate()
        .fetchOptional()
        .map(JooqSubscriptionRepository::toStored);
  }

  @Override
  public List<Subscription> list(Optional<UUID> after, int limit) {
    Condition from = after.map(WEBHOOK_SUBSCRIPTIONS.ID::gt).orElse(DSL.noCondition());
    return PgTx.dsl()
        .selectFrom(WEBHOOK_SUBSCRIPTIONS)
        .where(from)
        .orderBy(WEBHOOK_SUBSCRIPTIONS.ID)
        .limit(limit)
        .fetch(r -> toStored(r).view());
  }

  @Override
  public List<Subscription> listActive() {
    return PgTx.dsl()
        .selectFrom(WEBHOOK_SUBSCRIPTIONS)
        .where(WEBHOOK_SUBSCRIPTIONS.STATE.eq(SubscriptionState.ACTIVE.code()))
        .orderBy(WEBHOOK_SUBSCRIPTIONS.ID)
        .fetch(r -> toStored(r).view());
  }

  @Override
  public List<StoredSubscription> lockMatching(String eventType) {
    return LOCK_MATCHING
        .fetch(PgTx.dsl(), Map.of("types", new String[] {eventType}))
        .into(WEBHOOK_SUBSCRIPTIONS)
        .stream()
        .map(JooqSubscriptionRepository::toStored)
        .toList();
  }

  @Override
  public void updateFields(
      UUID id, String url, List<String> eventTypes, int rateLimit, Instant now) {
    PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .set(WEBHOOK_SUBSCRIPTIONS.URL, url)
        .set(WEBHOOK_SUBSCRIPTIONS.EVENT_TYPES, eventTypes.toArray(String[]::new))
        .set(WEBHOOK_SUBSCRIPTIONS.RATE_LIMIT, rateLimit)
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(now))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .execute();
  }

  @Override
  public void disable(UUID id, DisabledReason reason, Instant now) {
    PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .set(WEBHOOK_SUBSCRIPTIONS.STATE, SubscriptionState.DISABLED.code())
        .set(WEBHOOK_SUBSCRIPTIONS.DISABLED_REASON, reason.code())
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(now))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .execute();
  }

  @Override
  public int activate(UUID id, OptionalLong heldSeq, long lastDeliveredSeq, Instant now) {
    return PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .set(WEBHOOK_SUBSCRIPTIONS.STATE, SubscriptionState.ACTIVE.code())
        .setNull(WEBHOOK_SUBSCRIPTIONS.DISABLED_REASON)
        .setNull(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE)
        .set(WEBHOOK_SUBSCRIPTIONS.HELD_SEQ, heldSeq.isPresent() ? heldSeq.getAsLong() : null)
        .set(WEBHOOK_SUBSCRIPTIONS.LAST_DELIVERED_SEQ, lastDeliveredSeq)
        .set(WEBHOOK_SUBSCRIPTIONS.GENERATION, WEBHOOK_SUBSCRIPTIONS.GENERATION.plus(1))
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(now))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .returning(WEBHOOK_SUBSCRIPTIONS.GENERATION)
        .fetchOne(WEBHOOK_SUBSCRIPTIONS.GENERATION);
  }

  @Override
  public void hold(UUID id, OptionalLong heldSeq, Instant now) {
    PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .set(WEBHOOK_SUBSCRIPTIONS.HELD_SEQ, heldSeq.isPresent() ? heldSeq.getAsLong() : null)
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(now))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .execute();
  }

  @Override
  public void delivered(UUID id, long seq, Instant now) {
    PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .setNull(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE)
        .set(
            WEBHOOK_SUBSCRIPTIONS.LAST_DELIVERED_SEQ,
            DSL.greatest(WEBHOOK_SUBSCRIPTIONS.LAST_DELIVERED_SEQ, DSL.val(seq)))
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(now))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .execute();
  }

  @Override
  public Instant failed(UUID id, Instant now) {
    return PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .set(
            WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE,
            DSL.coalesce(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE, DSL.val(utc(now))))
        // Only the failure that starts a streak changes what the subscription shows.
        .set(
            WEBHOOK_SUBSCRIPTIONS.UPDATED_AT,
            DSL.when(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE.isNull(), DSL.val(utc(now)))
                .otherwise(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .returning(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE)
        .fetchOptional(WEBHOOK_SUBSCRIPTIONS.FAILING_SINCE)
        .map(OffsetDateTime::toInstant)
        .orElse(now);
  }

  @Override
  public void rotate(
      UUID id, String secret, String previous, Instant previousExpiresAt, Instant now) {
    PgTx.dsl()
        .update(WEBHOOK_SUBSCRIPTIONS)
        .set(WEBHOOK_SUBSCRIPTIONS.SECRET, secret)
        .set(WEBHOOK_SUBSCRIPTIONS.PREVIOUS_SECRET, previous)
        .set(WEBHOOK_SUBSCRIPTIONS.PREVIOUS_SECRET_EXPIRES_AT, utc(previousExpiresAt))
        .set(WEBHOOK_SUBSCRIPTIONS.UPDATED_AT, utc(now))
        .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
        .execute();
  }

  @Override
  public Optional<RateClaim> claimRateSlots(UUID id, Instant now, int limit, int wanted) {
    if (wanted < 1) {
      throw new IllegalArgumentException("a claim asks for at least one attempt");
    }
    // A fixed window of one second per subscription, counted in its row: every process that
    // delivers for it shares the count, and the row lock orders concurrent claims. The count grows
    // by what is asked, granted or not, so the grant follows from the new count alone (PostgreSQL
    // before 18 cannot return the old value of an UPDATE).
    Map<String, Object> values = new HashMap<>();
    values.put("id", id);
    for (String use : List.of("Started", "Count")) {
      values.put("floor" + use, utc(now.minus(RATE_WINDOW)));
      values.put("ceiling" + use, utc(now));
    }
    values.put("nowStarted", utc(now));
    values.put("wantedNew", wanted);
    values.put("wantedAdded", wanted);
    Result<Record> claimed = CLAIM.fetch(PgTx.dsl(), values);
    if (claimed.isEmpty()) {
      return Optional.empty();
    }
    Record window = claimed.get(0);
    long over = Math.max(0L, (long) window.get(WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_COUNT) - limit);
    int granted = (int) Math.max(0L, wanted - over);
    return Optional.of(
        new RateClaim(
            window.get(WEBHOOK_SUBSCRIPTIONS.RATE_WINDOW_STARTED_AT).toInstant(), granted));
  }

  @Override
  public Set<UUID> lockAll(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    return new HashSet<>(
        LOCK_ALL
            .fetch(PgTx.dsl(), Map.of("ids", ids.toArray(UUID[]::new)))
            .map(r -> r.get(WEBHOOK_SUBSCRIPTIONS.ID)));
  }

  @Override
  public void deliveredAll(Map<UUID, Long> highest, Instant now) {
    if (highest.isEmpty()) {
      return;
    }
    UUID[] ids = new UUID[highest.size()];
    Long[] seqs = new Long[highest.size()];
    int i = 0;
    for (Map.Entry<UUID, Long> e : highest.entrySet()) {
      ids[i] = e.getKey();
      seqs[i] = e.getValue();
      i++;
    }
    DELIVERED_ALL.countRows(PgTx.dsl(), Map.of("ids", ids, "seqs", seqs, "now", utc(now)));
  }

  @Override
  public boolean delete(UUID id) {
    return PgTx.dsl()
            .deleteFrom(WEBHOOK_SUBSCRIPTIONS)
            .where(WEBHOOK_SUBSCRIPTIONS.ID.eq(id))
            .execute()
        == 1;
  }

  @Override
  public Map<String, Long> countByStateAndReason() {
    Map<String, Long> counts = new LinkedHashMap<>();
    PgTx.dsl()
        .select(WEBHOOK_SUBSCRIPTIONS.STATE, WEBHOOK_SUBSCRIPTIONS.DISABLED_REASON, DSL.count())
        .from(WEBHOOK_SUBSCRIPTIONS)
        .groupBy(WEBHOOK_SUBSCRIPTIONS.STATE, WEBHOOK_SUBSCRIPTIONS.DISABLED_REASON)
        .fetch()
        .forEach(
            r -> counts.put(r.value2() == null ? r.value1() : r.value2(), r.value3().longValue()));
    return counts;
  }

  private static StoredSubscription toStored(WebhookSubscriptionsRecord r) {
    Subscription view =
        new Subscription(
            r.getId(),
            r.getUrl(),
            List.of(r.getEventTypes()),
            r.getOrdered(),
            r.getRateLimit(),
            SubscriptionState.fromCode(r.getState()),
            Optional.ofNullable(r.getDisabledReason()).map(DisabledReason::fromCode),
            r.getLastDeliveredSeq(),
            r.getHeldSeq() == null ? OptionalLong.empty() : OptionalLong.of(r.getHeldSeq()),
            Optional.ofNullable(r.getFailingSince()).map(OffsetDateTime::toInstant),
            Optional.ofNullable(r.getPreviousSecretExpiresAt()).map(OffsetDateTime::toInstant),
            r.getCreatedAt().toInstant(),
            r.getUpdatedAt().toInstant());
    return new StoredSubscription(
        view, r.getSecret(), Optional.ofNullable(r.getPreviousSecret()), r.getGeneration());
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
