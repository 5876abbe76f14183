package dev.bothy.api.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.system.Pings;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The use case behind {@code POST /v1/system/pings}: records a ping (its row and {@code
 * system.pinged}) and, with an {@code Idempotency-Key}, the key's row in the same unit, so a retry
 * within {@code api.idempotencyRetention} gets the first ping's id again and records nothing.
 */
public final class RecordPing {
  /** The prefix of a stored ping response: {@code ping <id>}. */
  static final String STORED_PREFIX = "ping ";

  private final UnitOfWork unitOfWork;
  private final Pings pings;
  private final IdempotencyRepository repository;
  private final Clock clock;
  private final Duration retention;

  /**
   * Creates the use case.
   *
   * @param unitOfWork the unit of work
   * @param pings the system module's port
   * @param repository the idempotency store
   * @param clock the clock
   * @param retention {@code api.idempotencyRetention}
   */
  public RecordPing(
      UnitOfWork unitOfWork,
      Pings pings,
      IdempotencyRepository repository,
      Clock clock,
      Duration retention) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.pings = Objects.requireNonNull(pings, "pings");
    this.repository = Objects.requireNonNull(repository, "repository");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.retention = Objects.requireNonNull(retention, "retention");
  }

  /** The answer to a request. */
  public sealed interface Answer {
    /**
     * The ping's id, recorded now or by the first request with the key.
     *
     * @param id the ping's id
     * @param replayed true when this answers a retry: the first request with the key recorded it
     */
    record Recorded(UUID id, boolean replayed) implements Answer {}

    /** The key was used with another request. */
    record KeyConflict() implements Answer {}
  }

  /**
   * Records a ping, or answers a retry.
   *
   * @param tokenName the token's name; keys are per token
   * @param idempotencyKey the {@code Idempotency-Key}, when sent
   * @param requestSha256 the SHA-256 of the route and the request body, 32 bytes
   * @return the answer
   * @throws BothyException the unit of work's errors
   */
  public Answer record(String tokenName, Optional<String> idempotencyKey, byte[] requestSha256) {
    if (idempotencyKey.isEmpty()) {
      return new Answer.Recorded(pings.record(), false);
    }
    String key = idempotencyKey.get();
    try {
      return unitOfWork.run(() -> recordOrFind(tokenName, key, requestSha256));
    } catch (BothyException e) {
      if (e.kind() != ErrorKind.CONFLICT) {
        throw e;
      }
      // A concurrent request with the same key committed first: answer from its row.
      Optional<StoredResponse> found =
          unitOfWork.run(() -> repository.find(tokenName, key, cutoff()));
      return found.map(row -> replay(row, requestSha256)).orElseThrow(() -> e);
    }
  }

  private Answer recordOrFind(String tokenName, String key, byte[] requestSha256) {
    Instant cutoff = cutoff();
    Optional<StoredResponse> found = repository.find(tokenName, key, cutoff);
    if (found.isPresent()) {
      return replay(found.get(), requestSha256);
    }
    repository.deleteExpired(tokenName, key, cutoff);
    UUID id = pings.record();
    repository.insert(
        new StoredResponse(
            tokenName, key, requestSha256, AppendEvents.CREATED, STORED_PREFIX + id, clock.now()));
    return new Answer.Recorded(id, false);
  }

  private static Answer replay(StoredResponse row, byte[] requestSha256) {
    if (!MessageDigest.isEqual(row.requestSha256(), requestSha256)
        || !row.body().startsWith(STORED_PREFIX)) {
      return new Answer.KeyConflict();
    }
    return new Answer.Recorded(UUID.fromString(row.body().substring(STORED_PREFIX.length())), true);
  }

  private Instant cutoff() {
    return clock.now().minus(retention);
  }
}
