package dev.bothy.api.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.AppendReceipt;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventLog;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Appends the events of one API request in one unit of work, honouring its {@code Idempotency-Key}:
 * the first request with a key stores its outcome in the same unit as its events, a retry with the
 * same body within {@code api.idempotencyRetention} gets the first response again and appends
 * nothing, another body under the key is a conflict.
 *
 * <p>The key's row is written in the work phase, before the sync phase takes the {@code event_seq}
 * lock (M1-15: locking the counter is the last step before commit), so the row never lengthens the
 * serialized window. The events have no numbers yet then, so the row stores what the response is
 * made of instead of its text ({@link StoredAppend}: the head seen before the append and the
 * events' ids); a retry reads the numbers of those ids back from the log and renders the same
 * response. Rows an earlier version stored as the response's text are replayed as they are.
 *
 * <p>Two concurrent requests with one key: the second one's insert waits for the first unit (before
 * either takes the counter lock) and then fails on the primary key, its unit rolls back with its
 * events, and it answers from the row the first one committed.
 */
public final class AppendEvents {
  /** The status of a fresh append. */
  public static final int CREATED = 201;

  private final UnitOfWork unitOfWork;
  private final Appender appender;
  private final EventLog log;
  private final IdempotencyRepository repository;
  private final Clock clock;
  private final Duration retention;

  /**
   * Creates the service.
   *
   * @param unitOfWork the unit of work
   * @param appender the event log's appender
   * @param log the event log, for the head before an append and the numbers of a replay
   * @param repository the idempotency store
   * @param clock the time of stored rows
   * @param retention {@code api.idempotencyRetention}
   */
  public AppendEvents(
      UnitOfWork unitOfWork,
      Appender appender,
      EventLog log,
      IdempotencyRepository repository,
      Clock clock,
      Duration retention) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.appender = Objects.requireNonNull(appender, "appender");
    this.log = Objects.requireNonNull(log, "log");
    this.repository = Objects.requireNonNull(repository, "repository");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.retention = Objects.requireNonNull(retention, "retention");
  }

  /**
   * One request to append.
   *
   * @param tokenName the authenticated token's name; keys are per token
   * @param idempotencyKey the {@code Idempotency-Key}, when sent
   * @param requestSha256 the SHA-256 of the request body; may be empty without an idempotency key,
   *     since only a key's row keeps it
   * @param drafts the events, in order
   * @param render renders the response body from the committed events' ids and numbers; it must
   *     depend on nothing else, since a replay renders the response again from the same ids and
   *     numbers
   */
  public record Command(
      String tokenName,
      Optional<String> idempotencyKey,
      byte[] requestSha256,
      List<EventDraft> drafts,
      Function<AppendReceipt, String> render) {
    /** Checks and copies the fields. */
    public Command {
      Objects.requireNonNull(tokenName, "tokenName");
      Objects.requireNonNull(idempotencyKey, "idempotencyKey");
      requestSha256 = requestSha256.clone();
      drafts = List.copyOf(drafts);
      Objects.requireNonNull(render, "render");
    }

    @Override
    public byte[] requestSha256() {
      return requestSha256.clone();
    }
  }

  /** The answer to a request. */
  public sealed interface Answer {
    /**
     * The events were appended.
     *
     * @param body the rendered response
     */
    record Created(String body) implements Answer {}

    /**
     * A retry: the first response again.
     *
     * @param status its status
     * @param body its body
     */
    record Replayed(int status, String body) implements Answer {}

    /** The key was used with another body. */
    record KeyConflict() implements Answer {}
  }

  /** The outcome of the unit: the found row of a retry, or the receipt of an append. */
  private record Outcome(Optional<StoredResponse> found, AppendReceipt receipt) {}

  /**
   * Appends the request's events, or answers a retry.
   *
   * @param command the request
   * @return the answer
   * @throws BothyException {@code invalid} for a draft the appender refuses (nothing is written);
   *     {@code internal} for a retry whose events are no longer in the log ({@code
   *     sync.eventRetention} shorter than {@code api.idempotencyRetention}); the unit of work's
   *     errors otherwise
   */
  public Answer append(Command command) {
    Optional<String> key = command.idempotencyKey();
    try {
      Outcome outcome = unitOfWork.run(() -> appendOrFind(command));
      if (outcome.found().isPresent()) {
        return replay(command, outcome.found().get());
      }
      return new Answer.Created(command.render().apply(outcome.receipt()));
    } catch (BothyException e) {
      if (key.isEmpty() || e.kind() != ErrorKind.CONFLICT) {
        throw e;
      }
      // A concurrent request with the same key committed first: answer from its row.
      Optional<StoredResponse> found =
          unitOfWork.run(() -> repository.find(command.tokenName(), key.get(), cutoff()));
      return found.map(row -> replay(command, row)).orElseThrow(() -> e);
    }
  }

  private Outcome appendOrFind(Command command) {
    Optional<String> key = command.idempotencyKey();
    if (key.isEmpty()) {
      return new Outcome(
          Optional.empty(), appender.appendNumbered(command.drafts().toArray(EventDraft[]::new)));
    }
    Instant cutoff = cutoff();
    Optional<StoredResponse> found = repository.find(command.tokenName(), key.get(), cutoff);
    if (found.isPresent()) {
      return new Outcome(found, null);
    }
    repository.deleteExpired(command.tokenName(), key.get(), cutoff);
    // Every event of this unit gets a number above the head read now: the replay reads from it.
    long headBefore = log.head();
    AppendReceipt receipt = appender.appendNumbered(command.drafts().toArray(EventDraft[]::new));
    // Written now, in the work phase: the counter lock of the sync phase stays the last step.
    repository.insert(
        new StoredResponse(
            command.tokenName(),
            key.get(),
            command.requestSha256(),
            CREATED,
            new StoredAppend(headBefore, receipt.ids()).encode(),
            clock.now()));
    return new Outcome(Optional.empty(), receipt);
  }

  private Answer replay(Command command, StoredResponse row) {
    if (!MessageDigest.isEqual(row.requestSha256(), command.requestSha256())) {
      return new Answer.KeyConflict();
    }
    Optional<StoredAppend> stored = StoredAppend.decode(row.body());
    if (stored.isEmpty()) {
      // A row of an earlier version holds the response's text itself.
      return new Answer.Replayed(row.status(), row.body());
    }
    List<UUID> ids = stored.get().ids();
    List<Long> seqs =
        log.numbersOf(ids, stored.get().headBefore())
            .orElseThrow(
                () ->
                    BothyException.internal(
                        "the events of an Idempotency-Key are no longer in the log:"
                            + " sync.eventRetention is shorter than api.idempotencyRetention"));
    return new Answer.Replayed(row.status(), command.render().apply(new Numbered(ids, seqs)));
  }

  /** The receipt of a replay: the stored ids with the numbers read back from the log. */
  private record Numbered(List<UUID> ids, List<Long> seqs) implements AppendReceipt {}

  private Instant cutoff() {
    return clock.now().minus(retention);
  }
}
