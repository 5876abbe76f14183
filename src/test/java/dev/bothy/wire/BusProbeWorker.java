package dev.bothy.wire;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.EventTypes;
import java.util.List;

/**
 * A launcher for child JVMs of the dispatch crash tests and of {@code bench/run.sh bus-dispatch}:
 * the real application (run it as {@code worker}) with one test bus consumer {@code probe_main} and
 * its handler {@code probe.effect} on {@code settings.updated}, on the log transport, or on NATS
 * when its configuration sets {@code bus.nats.url} (the benchmark's NATS rows).
 *
 * <p>System properties, read only here (never configuration keys of the application):
 *
 * <ul>
 *   <li>{@code bothy.test.probe.mode}: {@code effect} (default) inserts one row {@code (event_id,
 *       worker)} into the test table {@code bus_probe_effects} in the handler's transaction; {@code
 *       noop} does nothing (the benchmark).
 *   <li>{@code bothy.test.probe.worker}: the name written into each effect row, so a test can tell
 *       which process ran a handler.
 *   <li>{@code bothy.test.probe.fault}: the fault point that is armed, for the first event the
 *       handler runs: {@code before-commit} prints {@code FAULT before-commit <event id>} after the
 *       handler's write, as its last step, and blocks, so the unit of work never commits; {@code
 *       after-commit} prints {@code FAULT after-commit <event id>} from an {@code afterCommit}
 *       callback, right after the commit and before dispatch returns to the job, and blocks, so the
 *       job is never completed. The test kills the process with SIGKILL while it blocks.
 * </ul>
 */
final class BusProbeWorker {
  /** The handler's name. */
  static final String HANDLER = "probe.effect";

  private BusProbeWorker() {}

  public static void main(String[] args) throws Exception {
    String mode = System.getProperty("bothy.test.probe.mode", "effect");
    String worker = System.getProperty("bothy.test.probe.worker", "worker");
    String fault = System.getProperty("bothy.test.probe.fault", "");
    if (!List.of("effect", "noop").contains(mode)
        || !List.of("", "before-commit", "after-commit").contains(fault)) {
      throw new IllegalArgumentException("unknown bothy.test.probe.mode or fault");
    }
    java.util.concurrent.atomic.AtomicBoolean armed =
        new java.util.concurrent.atomic.AtomicBoolean(!fault.isEmpty());
    BusHandler<?> handler =
        "noop".equals(mode)
            ? BusHandler.of(HANDLER, EventTypes.SETTINGS_UPDATED, (tx, event, at) -> {})
            : BusHandler.of(
                HANDLER,
                EventTypes.SETTINGS_UPDATED,
                (tx, event, at) -> {
                  // A test table outside the generated schema: plain SQL is the only way to it.
                  PgTx.dsl()
                      .execute(
                          "INSERT INTO bus_probe_effects (event_id, worker) VALUES (?, ?)",
                          event.id(),
                          worker);
                  if (!armed.compareAndSet(true, false)) {
                    return;
                  }
                  if ("before-commit".equals(fault)) {
                    block("before-commit", event.id());
                  } else {
                    tx.afterCommit(() -> block("after-commit", event.id()));
                  }
                });
    new BothyApplication(
            assembly ->
                assembly
                    .busDispatch()
                    .register("probe", List.of(new BusConsumer("probe_main", List.of(handler)))))
        .run(args);
  }

  /** Says where it stands and waits for the SIGKILL; a stop interrupts nothing here. */
  private static void block(String point, java.util.UUID eventId) {
    System.out.println("FAULT " + point + " " + eventId);
    System.out.flush();
    while (true) {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        // The job's timeout interrupts the worker: keep blocking, only the kill ends this.
      }
    }
  }
}
