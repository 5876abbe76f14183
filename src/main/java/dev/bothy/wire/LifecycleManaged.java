package dev.bothy.wire;

import dev.bothy.platform.lifecycle.Lifecycle;
import io.dropwizard.lifecycle.Managed;

/**
 * Runs the {@link Lifecycle} from Dropwizard: start before the connectors open, stop after they
 * closed.
 */
final class LifecycleManaged implements Managed {
  private final Lifecycle lifecycle;

  LifecycleManaged(Lifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  public void start() throws Exception {
    try {
      lifecycle.start();
    } catch (Exception | Error e) {
      // A failed start ends the process; the stop phases still close what started.
      lifecycle.stop();
      throw e;
    }
  }

  @Override
  public void stop() {
    lifecycle.stop();
  }
}
