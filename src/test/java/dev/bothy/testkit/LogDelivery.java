package dev.bothy.testkit;

import dev.bothy.bus.app.DispatchFaults;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.bus.app.LogDispatchConsumer;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.kernel.BothyException;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.sync.app.RoundResult;
import dev.bothy.testing.PgExtension;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The log transport of a chaos run: the worker consumer {@code bus} (its real round, cursor and
 * {@link LogDispatchConsumer}) queues the {@code bus.dispatch} jobs, and this class plays the job
 * runtime: each delivery is {@link DispatchJob#attempt} with the attempt number the runtime would
 * give. A nak, or a crash at a fault point (the process gone, the rescuer returning the job), puts
 * the job back with the next attempt; a duplicate is the same job attempted again after its ack, as
 * after a completion lost with its process. The runtime's fetch, completion and rescue are the job
 * runtime's own tests'.
 */
final class LogDelivery {
  /** The queued jobs of the log transport, read with the owner role. */
  private static final String JOBS_SQL =
      "SELECT id::text, args->>'handler', args->>'eventId', args->>'seq' FROM jobs"
          + " WHERE kind = 'bus.dispatch' ORDER BY id";

  private record Delivery(UUID job, DispatchJob.Args args, int attempt, int repeats) {
    Delivery next(int repeatsLeft) {
      return new Delivery(job, args, attempt + 1, repeatsLeft);
    }
  }

  private final ChaosRig rig;
  private final Script script;
  private final Optional<Fault> fault;
  private final Random random;
  private final int window;
  private final PgExtension pg;
  private final Instant deadline;

  LogDelivery(
      ChaosRig rig,
      Script script,
      Optional<Fault> fault,
      Random random,
      int window,
      PgExtension pg,
      Instant deadline) {
    this.rig = rig;
    this.script = script;
    this.fault = fault;
    this.random = random;
    this.window = window;
    this.pg = pg;
    this.deadline = deadline;
  }

  /** Runs the script and delivers until nothing is left; empty when it settled. */
  Optional<String> drive() throws SQLException {
    ConsumerService consumers =
        new ConsumerService(rig.uow, new JooqConsumerCursorRepository(), rig.events, 100);
    consumers.register(ConsumerName.BUS, new LogDispatchConsumer(rig.handlers, rig.inserter));
    consumers.ensure();
    rig.runScript(script, 0, script.steps());
    Deque<Delivery> queue = new ArrayDeque<>();
    Set<UUID> queued = new HashSet<>();
    List<String> cancelled = new ArrayList<>();
    boolean reordered = false;
    while (true) {
      if (Instant.now().isAfter(deadline)) {
        return Optional.of(
            "the log transport did not settle within "
                + ChaosSuite.RUN_LIMIT
                + ": "
                + queue.size()
                + " deliveries still queued");
      }
      // Bounded: each processed round moves the cursor over at least one event of a finite log.
      RoundResult round;
      do {
        round = consumers.round(ConsumerName.BUS);
      } while (round.outcome() == RoundResult.Outcome.PROCESSED);
      for (String[] job : EndStates.rows(pg.owner(), JOBS_SQL)) {
        UUID id = UUID.fromString(job[0]);
        if (queued.add(id)) {
          DispatchJob.Args args =
              new DispatchJob.Args(
                  UUID.fromString(job[1]), UUID.fromString(job[2]), Long.parseLong(job[3]));
          queue.addLast(new Delivery(id, args, 1, repeats()));
        }
      }
      if (queue.isEmpty()) {
        break;
      }
      List<Delivery> batch = new ArrayList<>();
      int size = fault.orElse(null) == Fault.REORDER ? window : 1;
      while (batch.size() < size && !queue.isEmpty()) {
        batch.add(queue.pollFirst());
      }
      if (size > 1) {
        List<Delivery> before = List.copyOf(batch);
        Collections.shuffle(batch, random);
        reordered |= !before.equals(batch);
      }
      for (Delivery d : batch) {
        attempt(d, queue, cancelled);
      }
    }
    if (!cancelled.isEmpty()) {
      return Optional.of("dispatch jobs were cancelled: " + cancelled);
    }
    if (fault.orElse(null) == Fault.REORDER && !reordered) {
      return Optional.of("REORDER changed the order of no window: the fault never struck");
    }
    return Optional.empty();
  }

  private int repeats() {
    // Delivered two or three times in all.
    return fault.orElse(null) == Fault.DUPLICATES ? 1 + random.nextInt(2) : 0;
  }

  private void attempt(Delivery d, Deque<Delivery> queue, List<String> cancelled) {
    if (d.attempt() > VerdictRules.MAX_DELIVER) {
      cancelled.add("job " + d.job() + " ran out of attempts");
      return;
    }
    JobContext context =
        new JobContext(
            d.job(), DispatchJob.KIND, d.attempt(), VerdictRules.MAX_DELIVER, ChaosSuite.START);
    try {
      rig.dispatchJob.attempt(context, d.args());
      if (d.repeats() > 0) {
        queue.addLast(d.next(d.repeats() - 1));
      }
    } catch (JobEnd end) {
      cancelled.add(end.getMessage());
    } catch (BothyException e) {
      if (!e.kind().retryable()) {
        throw e;
      }
      // A nak: the runtime retries the job with its next attempt (the delay is the runtime's).
      queue.addLast(d.next(d.repeats()));
    } catch (Error e) {
      if (!DispatchFaults.isCrash(e)) {
        throw e;
      }
      // The process died at the fault point: the rescuer hands the job to the next attempt.
      queue.addLast(d.next(d.repeats()));
    }
  }
}
