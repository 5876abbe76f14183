package dev.bothy.system.adapters.postgres;

import static dev.bothy.db.Tables.SYSTEM_PINGS;

import dev.bothy.platform.pg.PgTx;
import dev.bothy.system.Ping;
import dev.bothy.system.PingStatus;
import dev.bothy.system.app.PingRepository;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;

/** The store of {@code system_pings}, through the current unit's transaction. */
public final class JooqPingRepository implements PingRepository {
  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqPingRepository() {}

  @Override
  public void insert(UUID id, Instant pingedAt) {
    PgTx.dsl()
        .insertInto(SYSTEM_PINGS)
        .set(SYSTEM_PINGS.ID, id)
        .set(SYSTEM_PINGS.STATUS, PingStatus.PINGED.code())
        .set(SYSTEM_PINGS.PINGED_AT, pingedAt.atOffset(ZoneOffset.UTC))
        .execute();
  }

  @Override
  public boolean markEchoed(UUID id, Instant echoedAt) {
    return PgTx.dsl()
            .update(SYSTEM_PINGS)
            .set(SYSTEM_PINGS.STATUS, PingStatus.ECHOED.code())
            .set(SYSTEM_PINGS.ECHOED_AT, echoedAt.atOffset(ZoneOffset.UTC))
            .where(SYSTEM_PINGS.ID.eq(id))
            .and(SYSTEM_PINGS.STATUS.eq(PingStatus.PINGED.code()))
            .execute()
        == 1;
  }

  @Override
  public Optional<Ping> find(UUID id) {
    return PgTx.dsl()
        .selectFrom(SYSTEM_PINGS)
        .where(SYSTEM_PINGS.ID.eq(id))
        .fetchOptional()
        .map(
            r ->
                new Ping(
                    r.getId(),
                    PingStatus.fromCode(r.getStatus()),
                    r.getPingedAt().toInstant(),
                    Optional.ofNullable(r.getEchoedAt()).map(OffsetDateTime::toInstant)));
  }
}
