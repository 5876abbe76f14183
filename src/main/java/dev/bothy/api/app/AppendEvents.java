package dev.bothy.api.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHooks;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.AppendReceipt;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventDraft;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Appends the events of one API request in one unit of work, honouring its {@code Idempotency-Key}:
 * the first request with a key stores its response in the same unit as its events (the audit phase
 * hook {@code api.idempotency}, which runs once the sync phase numbered them), a retry with the
 * same body within {@code api.idempotencyRetention} gets that response again and appends nothing,
 * another body under the key is a conflict.
 *
 * <p>Two concurrent requests with one key: the second one's insert waits for the first unit and
 * then fails on the primary key, its unit rolls back with its events, and it answers from the row
 * the first one committed.
 */
public final class AppendEvents {
  /** The registration name of the audit phase hook. */
  public static final String HOOK = "api.idempotency";

  /** The status of a fresh append. */
  public static final int CREATED = 201;

  private static final TxKey<Pending> PENDING = TxKey.of("api.idempotency.pending");

  private final UnitOfWork unitOfWork;
  private final Appender appender;
  private final IdempotencyRepository repository;
  private final Clock clock;
  private final Duration retention;

  /**
   * Creates the service and registers its audit phase hook.
   *
   * @param unitOfWork the unit of work
   * @param hooks where the hook {@value #HOOK} is registered (before they freeze)
   * @param appender the event log's appender
   * @param repository the idempotency store
   * @param clock the time of stored responses
   * @param retention {@code api.idempotencyRetention}
   */
  public AppendEvents(
      UnitOfWork unitOfWork,
      PhaseHooks hooks,
      Appender appender,
      IdempotencyRepository repository,
      Clock clock,
      Duration retention) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.appender = Objects.requireNonNull(appender, "appender");
    this.repository = Objects.requireNonNull(repository, "repository");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.retention = Objects.requireNonNull(retention, "retention");
    hooks.register(Phase.AUDIT, HOOK, this::storeResponse);
  }

  /**
   * One request to append.
   *
   * @param tokenName the authenticated token's name; keys are per token
   * @param idempotencyKey the {@code Idempotency-Key}, when sent
   * @param requestSha256 the SHA-256 of the request body; may be empty without an idempotency key,
   *     since only a key's row keeps it
   * @param drafts the events, in order
   * @param render renders the response body from the committed events' ids and numbers
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
     * A retry: the stored first response.
     *
     * @param status its status
     * @param body its body
     */
    record Replayed(int status, String body) implements Answer {}

    /** The key was used with another body. */
    record KeyConflict() implements Answer {}
  }

  /** What the audit hook needs to store the response of a keyed request. */
  private static final class Pending {
    private final Command command;
    private final AppendReceipt receipt;
    private String body;

    Pending(Command command, AppendReceipt receipt) {
      this.command = command;
      this.receipt = receipt;
    }
  }

  /** The outcome of the unit: the found row of a retry, or the receipt of an append. */
  private record Outcome(
      Optional<StoredResponse> found, AppendReceipt receipt, Optional<Pending> pending) {}

  /**
   * Appends the request's events, or answers a retry.
   *
   * @param command the request
   * @return the answer
   * @throws BothyException {@code invalid} for a draft the appender refuses (nothing is written);
   *     the unit of work's errors otherwise
   */
  public Answer append(Command command) {
    Optional<String> key = command.idempotencyKey();
    try {
      Outcome outcome = unitOfWork.run(() -> appendOrFind(command));
      if (outcome.found().isPresent()) {
        return replay(command, outcome.found().get());
      }
      String body =
          outcome
              .pending()
              .map(p -> p.body)
              .orElseGet(() -> command.render().apply(outcome.receipt()));
      return new Answer.Created(body);
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
    if (key.isPresent()) {
      Instant cutoff = cutoff();
      Optional<StoredResponse> found = repository.find(command.tokenName(), key.get(), cutoff);
      if (found.isPresent()) {
        return new Outcome(found, null, Optional.empty());
      }
      repository.deleteExpired(command.tokenName(), key.get(), cutoff);
    }
    AppendReceipt receipt = appender.appendNumbered(command.drafts().toArray(EventDraft[]::new));
    if (key.isEmpty()) {
      return new Outcome(Optional.empty(), receipt, Optional.empty());
    }
    Pending pending = new Pending(command, receipt);
    unitOfWork.put(PENDING, pending);
    return new Outcome(Optional.empty(), receipt, Optional.of(pending));
  }

  private Answer replay(Command command, StoredResponse row) {
    if (!MessageDigest.isEqual(row.requestSha256(), command.requestSha256())) {
      return new Answer.KeyConflict();
    }
    return new Answer.Replayed(row.status(), row.body());
  }

  private Instant cutoff() {
    return clock.now().minus(retention);
  }

  /** The audit hook: the events have their numbers now, so the response can be rendered. */
  private void storeResponse() {
    Optional<Pending> pending = unitOfWork.get(PENDING);
    if (pending.isEmpty()) {
      return;
    }
    Pending p = pending.get();
    p.body = p.command.render().apply(p.receipt);
    repository.insert(
        new StoredResponse(
            p.command.tokenName(),
            p.command.idempotencyKey().orElseThrow(),
            p.command.requestSha256(),
            CREATED,
            p.body,
            clock.now()));
  }
}
