package dev.bothy.testkit;

import java.util.Set;

/**
 * The faults a chaos suite runs a script under (issue 20); each run is compared with the clean run.
 * How each is made, and where in-process stands in for a process, is in the package's README.
 */
public enum Fault {
  /** Every message delivered two or three times (a lost ack or job completion). */
  DUPLICATES(Set.of(BusTransport.LOG, BusTransport.NATS)),
  /** Deliveries handled in a shuffled order within a window of messages. */
  REORDER(Set.of(BusTransport.LOG, BusTransport.NATS)),
  /** A crash between the handler and its commit, at dispatch's armed fault point. */
  CRASH_BEFORE_COMMIT(Set.of(BusTransport.LOG, BusTransport.NATS)),
  /** A crash after the handler's commit and before the transport's ack. */
  CRASH_AFTER_COMMIT(Set.of(BusTransport.LOG, BusTransport.NATS)),
  /** The {@code nats-server} killed with SIGKILL mid-run and started again on its store. */
  NATS_RESTART(Set.of(BusTransport.NATS)),
  /** The relay holding the lease killed mid-run; a standby relay takes over. */
  RELAY_KILL(Set.of(BusTransport.NATS)),
  /** The database backend of a handler's unit terminated before its commit. */
  BACKEND_TERMINATED(Set.of(BusTransport.LOG, BusTransport.NATS));

  private final Set<BusTransport> transports;

  Fault(Set<BusTransport> transports) {
    this.transports = transports;
  }

  /**
   * Tells whether the fault exists on a transport: NATS and the relay are not in the log
   * transport's path.
   *
   * @param transport the transport
   * @return true when the fault can happen there
   */
  public boolean appliesTo(BusTransport transport) {
    return transports.contains(transport);
  }
}
