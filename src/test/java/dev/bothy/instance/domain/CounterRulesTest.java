package dev.bothy.instance.domain;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.txn.Phase;
import org.junit.jupiter.api.Test;

class CounterRulesTest {

  @Test
  void each_counter_advances_only_in_its_own_phase() {
    String[][] owners = {
      {"permission_version", "RIGHTS_BEGIN"}, {"event_seq", "SYNC"}, {"audit_seq", "AUDIT"}
    };
    for (String[] owner : owners) {
      for (Phase phase : Phase.values()) {
        if (phase.name().equals(owner[1])) {
          assertThatCode(() -> CounterRules.checkAdvance(owner[0], 1, phase))
              .doesNotThrowAnyException();
        } else {
          assertThatThrownBy(() -> CounterRules.checkAdvance(owner[0], 1, phase))
              .hasMessageContaining(owner[0])
              .hasMessageContaining(phase.code());
        }
      }
    }
  }

  @Test
  void reads_are_allowed_in_every_hook_phase_and_never_in_work() {
    for (Phase phase : Phase.values()) {
      if (phase.isHookPhase()) {
        assertThatCode(() -> CounterRules.checkCurrent("event_seq", phase))
            .doesNotThrowAnyException();
      } else {
        assertThatThrownBy(() -> CounterRules.checkCurrent("event_seq", phase))
            .hasMessageContaining("work");
      }
    }
  }

  @Test
  void unknown_names_and_amounts_below_one_are_rejected() {
    assertThatThrownBy(() -> CounterRules.checkAdvance("job_seq", 1, Phase.SYNC))
        .hasMessageContaining("unknown counter name: job_seq");
    assertThatThrownBy(() -> CounterRules.requireKnown(null))
        .hasMessageContaining("unknown counter name");
    assertThatThrownBy(() -> CounterRules.checkAdvance("event_seq", 0, Phase.SYNC))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> CounterRules.checkAdvance("event_seq", -3, Phase.SYNC))
        .hasMessageContaining("at least 1");
  }
}
