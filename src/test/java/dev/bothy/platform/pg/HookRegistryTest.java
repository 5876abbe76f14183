package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHook;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The declared order of phase hooks: one list decides the run order, not the wiring's order. */
class HookRegistryTest {
  private static final List<String> ORDER =
      List.of("sync: jobs.insert", "sync: sync.append", "audit: api.idempotency");

  @Test
  void hooks_run_in_the_declared_order_whatever_order_they_were_registered_in() {
    List<String> ran = new ArrayList<>();
    HookRegistry registry = new HookRegistry(ORDER);
    registry.register(Phase.AUDIT, "api.idempotency", record(ran, "api.idempotency"));
    registry.register(Phase.SYNC, "sync.append", record(ran, "sync.append"));
    registry.register(Phase.SYNC, "jobs.insert", record(ran, "jobs.insert"));
    registry.freeze();

    for (Phase phase : Phase.values()) {
      if (phase.isHookPhase()) {
        for (PhaseHook hook : registry.hooks(phase)) {
          hook.run();
        }
      }
    }

    assertThat(registry.registrations()).containsExactlyElementsOf(ORDER);
    assertThat(ran).containsExactly("jobs.insert", "sync.append", "api.idempotency");
  }

  @Test
  void a_hook_missing_from_the_declared_order_is_refused_with_its_line() {
    HookRegistry registry = new HookRegistry(ORDER);

    assertThatThrownBy(() -> registry.register(Phase.SYNC, "webhooks.flush", () -> {}))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("sync: webhooks.flush")
        .hasMessageContaining("not in the declared order");
    assertThatThrownBy(() -> registry.register(Phase.AUDIT, "sync.append", () -> {}))
        .hasMessageContaining("audit: sync.append");
  }

  @Test
  void an_order_that_names_a_hook_twice_is_refused() {
    assertThatThrownBy(() -> new HookRegistry(List.of("sync: a", "sync: a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
  }

  @Test
  void without_a_declared_order_hooks_run_in_registration_order() {
    HookRegistry registry = new HookRegistry();
    registry.register(Phase.SYNC, "b", () -> {});
    registry.register(Phase.SYNC, "a", () -> {});

    assertThat(registry.registrations()).containsExactly("sync: b", "sync: a");
  }

  private static PhaseHook record(List<String> ran, String name) {
    return () -> ran.add(name);
  }
}
