package dev.bothy.system.adapters.postgres;

import static dev.bothy.db.Tables.SYSTEM_ECHOES;

import dev.bothy.platform.pg.PgTx;
import dev.bothy.system.app.EchoRepository;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;

/** The store of {@code system_echoes}, through the current unit's transaction. */
public final class JooqEchoRepository implements EchoRepository {
  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqEchoRepository() {}

  @Override
  public void insert(
      UUID pingId, UUID pingedEventId, UUID echoEventId, long echoSeq, Instant echoedAt) {
    PgTx.dsl()
        .insertInto(SYSTEM_ECHOES)
        .set(SYSTEM_ECHOES.PING_ID, pingId)
        .set(SYSTEM_ECHOES.PINGED_EVENT_ID, pingedEventId)
        .set(SYSTEM_ECHOES.ECHO_EVENT_ID, echoEventId)
        .set(SYSTEM_ECHOES.ECHO_SEQ, echoSeq)
        .set(SYSTEM_ECHOES.ECHOED_AT, echoedAt.atOffset(ZoneOffset.UTC))
        .onConflictDoNothing()
        .execute();
  }

  @Override
  public long deleteAll() {
    return PgTx.dsl().deleteFrom(SYSTEM_ECHOES).execute();
  }
}
