package dev.bothy.sync.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import dev.bothy.sync.domain.AppendRules;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/** The {@link EventLog} over the {@link EventRepository}. */
public final class EventLogService implements EventLog {
  private final UnitOfWork unitOfWork;
  private final EventRepository repository;

  /**
   * Creates the service.
   *
   * @param unitOfWork runs the reads when the caller is not in a unit
   * @param repository the storage
   */
  public EventLogService(UnitOfWork unitOfWork, EventRepository repository) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.repository = Objects.requireNonNull(repository, "repository");
  }

  @Override
  public long head() {
    return unitOfWork.join(repository::head);
  }

  @Override
  public long minRetained() {
    return unitOfWork.join(repository::minRetained);
  }

  @Override
  public Optional<List<Long>> numbersOf(List<UUID> ids, long afterSeq) {
    if (afterSeq < 0) {
      throw BothyException.invalid("read after a negative number: " + afterSeq);
    }
    List<UUID> wanted = List.copyOf(ids);
    if (wanted.isEmpty()) {
      return Optional.of(List.of());
    }
    Map<UUID, Long> found = unitOfWork.join(() -> repository.numbersOf(wanted, afterSeq));
    List<Long> numbers = new ArrayList<>(wanted.size());
    for (UUID id : wanted) {
      Long seq = found.get(id);
      if (seq == null) {
        return Optional.empty();
      }
      numbers.add(seq);
    }
    return Optional.of(numbers);
  }

  @Override
  public List<Event> readNumbers(Collection<Long> seqs) {
    long[] distinct = seqs.stream().mapToLong(Long::longValue).distinct().sorted().toArray();
    if (distinct.length > 0 && distinct[0] < 1) {
      throw BothyException.invalid("read of a number below 1: " + distinct[0]);
    }
    if (distinct.length == 0) {
      return List.of();
    }
    return unitOfWork.join(() -> repository.readNumbers(distinct));
  }

  @Override
  public ReadResult readAfter(long afterSeq, int limit) {
    if (afterSeq < 0) {
      throw BothyException.invalid("read after a negative number: " + afterSeq);
    }
    if (limit < 1) {
      throw BothyException.invalid("read limit must be at least 1, not " + limit);
    }
    return unitOfWork.join(
        () -> {
          List<Event> events = repository.readAfter(afterSeq, limit);
          // Only a page that does not start right after the reader's number can hide a loss;
          // the minimum is read only then.
          if (events.isEmpty() || events.get(0).seq() != afterSeq + 1) {
            long min = repository.minRetained();
            if (AppendRules.mustResync(afterSeq, min)) {
              return new ReadResult.ResyncRequired(min);
            }
          }
          long next = events.isEmpty() ? afterSeq : events.get(events.size() - 1).seq();
          return new ReadResult.Page(events, next);
        });
  }
}
