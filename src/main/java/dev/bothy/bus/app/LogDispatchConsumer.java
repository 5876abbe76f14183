package dev.bothy.bus.app;

import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.sync.ConsumerHandler;
import dev.bothy.sync.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The handler of the worker consumer {@code bus}, the log transport (ADR 0024): every event becomes
 * one {@code bus.dispatch} job per registered bus handler that takes its type, queued with {@code
 * insertLater} in the round's transaction, so the jobs and the cursor move commit together. Events
 * no handler takes cost nothing but the read.
 */
public final class LogDispatchConsumer implements ConsumerHandler {
  private final HandlerRegistry registry;
  private final JobInserter inserter;

  /**
   * Creates the handler.
   *
   * @param registry the bus handlers of this process
   * @param inserter the job inserter
   */
  public LogDispatchConsumer(HandlerRegistry registry, JobInserter inserter) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
  }

  @Override
  public void handleEvent(Event event) {
    List<JobInsert> jobs = new ArrayList<>();
    for (HandlerRegistry.Registered r : registry.interested(event.type())) {
      jobs.add(DispatchJob.insert(r, event.id(), event.seq()));
    }
    if (!jobs.isEmpty()) {
      inserter.insertLater(jobs);
    }
  }
}
