package dev.bothy.wire;

import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.sync.app.AppendHook;
import java.util.List;

/**
 * The one place that orders the phase hooks of every unit of work; modules register their hooks in
 * any order and the registry runs them in this one. {@code
 * src/test/resources/golden/phase-hooks.txt} shows what a process registers, reviewed as a diff.
 */
final class PhaseHookOrder {
  /**
   * The hooks in run order, as {@code "<phase>: <name>"}. The deferred job inserts come before the
   * append, so they are written before {@code sync.append} takes the {@code event_seq} lock and
   * never lengthen the serialized window: locking the counter is the last step before commit
   * (M1-15). The idempotency key of an append is written in the work phase, before all of them.
   */
  static final List<String> ORDER =
      List.of("sync: " + JobInserterService.FLUSH_HOOK, "sync: " + AppendHook.NAME);

  private PhaseHookOrder() {}
}
