package dev.bothy.wire;

import dev.bothy.platform.jobs.JobKind;
import dev.bothy.sync.ConsumerName;
import dev.bothy.testing.ConsumerFixture;
import java.util.UUID;

/**
 * A launcher for child JVMs of the crash test and the role tests: the real application with the
 * test-only probe consumer on {@code push} (the application registers the real {@code webhooks}
 * consumer itself) (two {@code sync.consumer_probe} jobs per event, for Alex and Sam) and its no-op
 * job kind.
 */
final class ProbeWorker {
  static final UUID ALEX = UUID.fromString("01a23000-0000-7000-8000-00000000a1e0");
  static final UUID SAM = UUID.fromString("01a23000-0000-7000-8000-000000005a30");

  private ProbeWorker() {}

  public static void main(String[] args) throws Exception {
    new BothyApplication(
            assembly -> {
              assembly
                  .jobs()
                  .register(
                      JobKind.builder(
                              "sync.consumer_probe", ConsumerFixture.ProbeArgs.class, (c, a) -> {})
                          .build());
              assembly
                  .sync()
                  .registerConsumer(
                      ConsumerName.PUSH,
                      e ->
                          assembly
                              .jobs()
                              .inserter()
                              .insertLater(
                                  java.util.List.of(
                                      dev.bothy.platform.jobs.JobInsert.of(
                                          new ConsumerFixture.ProbeArgs(e.seq(), ALEX)),
                                      dev.bothy.platform.jobs.JobInsert.of(
                                          new ConsumerFixture.ProbeArgs(e.seq(), SAM)))));
            })
        .run(args);
  }
}
