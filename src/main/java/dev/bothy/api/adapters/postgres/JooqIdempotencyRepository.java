package dev.bothy.api.adapters.postgres;

import static dev.bothy.db.Tables.API_IDEMPOTENCY_KEYS;

import dev.bothy.api.app.IdempotencyRepository;
import dev.bothy.api.app.StoredResponse;
import dev.bothy.db.tables.records.ApiIdempotencyKeysRecord;
import dev.bothy.platform.pg.PgTx;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import org.jooq.Field;
import org.jooq.impl.DSL;

/** The store of {@code api_idempotency_keys}, through the current unit's transaction. */
public final class JooqIdempotencyRepository implements IdempotencyRepository {
  // ctid picks the batch of a DELETE ... LIMIT: the table has no single-column key. It is a
  // system column, so the generated model has no field for it; it is named, not written as SQL.
  private static final Field<Object> CTID = DSL.field(DSL.name("ctid"));

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqIdempotencyRepository() {}

  @Override
  public Optional<StoredResponse> find(String tokenName, String key, Instant notBefore) {
    return PgTx.dsl()
        .selectFrom(API_IDEMPOTENCY_KEYS)
        .where(API_IDEMPOTENCY_KEYS.TOKEN_NAME.eq(tokenName))
        .and(API_IDEMPOTENCY_KEYS.IDEM_KEY.eq(key))
        .and(API_IDEMPOTENCY_KEYS.CREATED_AT.ge(utc(notBefore)))
        .fetchOptional()
        .map(JooqIdempotencyRepository::toResponse);
  }

  @Override
  public void deleteExpired(String tokenName, String key, Instant before) {
    PgTx.dsl()
        .deleteFrom(API_IDEMPOTENCY_KEYS)
        .where(API_IDEMPOTENCY_KEYS.TOKEN_NAME.eq(tokenName))
        .and(API_IDEMPOTENCY_KEYS.IDEM_KEY.eq(key))
        .and(API_IDEMPOTENCY_KEYS.CREATED_AT.lt(utc(before)))
        .execute();
  }

  @Override
  public void insert(StoredResponse response) {
    PgTx.dsl()
        .insertInto(API_IDEMPOTENCY_KEYS)
        .set(API_IDEMPOTENCY_KEYS.TOKEN_NAME, response.tokenName())
        .set(API_IDEMPOTENCY_KEYS.IDEM_KEY, response.key())
        .set(API_IDEMPOTENCY_KEYS.REQUEST_SHA256, response.requestSha256())
        .set(API_IDEMPOTENCY_KEYS.STATUS, response.status())
        .set(API_IDEMPOTENCY_KEYS.RESPONSE, response.body())
        .set(API_IDEMPOTENCY_KEYS.CREATED_AT, utc(response.createdAt()))
        .execute();
  }

  @Override
  public int deleteOlderThan(Instant before, int limit) {
    return PgTx.dsl()
        .deleteFrom(API_IDEMPOTENCY_KEYS)
        .where(
            CTID.in(
                DSL.select(CTID)
                    .from(API_IDEMPOTENCY_KEYS)
                    .where(API_IDEMPOTENCY_KEYS.CREATED_AT.lt(utc(before)))
                    .limit(limit)))
        .execute();
  }

  private static StoredResponse toResponse(ApiIdempotencyKeysRecord r) {
    return new StoredResponse(
        r.getTokenName(),
        r.getIdemKey(),
        r.getRequestSha256(),
        r.getStatus(),
        r.getResponse(),
        r.getCreatedAt().toInstant());
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
