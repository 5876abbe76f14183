package dev.bothy.bus.app;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The restart of a projection consumer on the log transport (ADR 0027, D-RP-4): the worker consumer
 * {@code bus} is shared by every bus consumer, so its cursor stays where it is; instead the replay
 * queues one {@code bus.dispatch} job per retained event and handler of the consumer, from the
 * oldest retained event up to the cursor of {@code bus} as read after the reset. Events after it
 * are queued by {@code bus} itself, as always. The jobs carry no unique key (a completed job of the
 * same pair may still exist); a pair handled meanwhile finds its delivery row. The walk reads
 * {@code consumer.batchSize} events and queues their jobs per unit of work.
 */
public final class LogReplayRestart implements ProjectionReplay.Restart {
  private static final Logger LOG = LoggerFactory.getLogger(LogReplayRestart.class);

  private final UnitOfWork unitOfWork;
  private final EventLog log;
  private final Consumers cursors;
  private final JobInserter inserter;
  private final int batchSize;

  /**
   * Creates the restart.
   *
   * @param unitOfWork the unit of work of each batch's inserts
   * @param log the event log
   * @param cursors the worker consumers, for where {@code bus} stands
   * @param inserter the job inserter; {@code bus.dispatch} is registered in it
   * @param batchSize {@code consumer.batchSize}: events read per batch
   */
  public LogReplayRestart(
      UnitOfWork unitOfWork, EventLog log, Consumers cursors, JobInserter inserter, int batchSize) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.log = Objects.requireNonNull(log, "log");
    this.cursors = Objects.requireNonNull(cursors, "cursors");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    if (batchSize < 1) {
      throw new IllegalArgumentException("consumer.batchSize must be at least 1");
    }
    this.batchSize = batchSize;
  }

  @Override
  public String restart(BusConsumer consumer, Consumer<String> progress) {
    // Read after the reset committed: every job that ran before the commit was queued by a round
    // that had moved the cursor past its event, so every reset effect is at or below `until`.
    long until =
        cursors.states().stream()
            .filter(s -> s.name().equals(ConsumerName.BUS))
            .mapToLong(ConsumerState::lastSeq)
            .findFirst()
            .orElse(0L);
    long from = log.minRetained();
    if (until == 0 || from == 0 || from > until) {
      return "the log transport: the worker consumer bus has dispatched no retained event"
          + " (cursor "
          + until
          + "), so it queues every event for "
          + consumer.durable()
          + " itself; no job queued";
    }
    progress.accept(
        "queueing bus.dispatch jobs of "
            + consumer.durable()
            + " for the retained events "
            + from
            + " to "
            + until
            + " (the cursor of the worker consumer bus)");
    long after = from - 1;
    long queued = 0;
    while (after < until) {
      ReadResult read = log.readAfter(after, batchSize);
      if (read instanceof ReadResult.ResyncRequired gone) {
        // Retention removed the next events meanwhile: they are gone for every consumer.
        LOG.warn(
            "bus projection replay passed events removed by retention: bothy.bus.durable={}"
                + " after_seq={} min_retained_seq={}",
            consumer.durable(),
            after,
            gone.minRetainedSeq());
        after = gone.minRetainedSeq() - 1;
        continue;
      }
      ReadResult.Page page = (ReadResult.Page) read;
      if (page.events().isEmpty()) {
        break;
      }
      List<JobInsert> jobs = new ArrayList<>();
      for (Event e : page.events()) {
        if (e.seq() > until) {
          break;
        }
        for (BusHandler<?> h : consumer.handlers()) {
          if (h.eventType().name().equals(e.type())) {
            jobs.add(DispatchJob.replay(h.name(), e.id(), e.seq()));
          }
        }
        after = e.seq();
      }
      if (!jobs.isEmpty()) {
        unitOfWork.run(() -> inserter.insertTx(jobs));
        queued += jobs.size();
      }
      if (page.events().get(page.events().size() - 1).seq() > until) {
        after = until;
      }
      progress.accept("queued " + queued + " jobs, through event " + after + " of " + until);
    }
    return "the log transport: "
        + queued
        + " bus.dispatch jobs queued for the retained events "
        + from
        + " to "
        + until
        + "; the worker consumer bus queues the events after "
        + until
        + " as always";
  }
}
