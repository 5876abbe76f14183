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
    lifecycle.start();
  }

  @Override
  public void stop() {
    lifecycle.stop();
  }
}
