package dev.bothy.console.http;

import dev.bothy.api.Scope;
import dev.bothy.bus.RelayView;
import dev.bothy.console.ProcessReadings;
import dev.bothy.console.domain.History;
import dev.bothy.kernel.Clock;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.EventLog;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code GET /console/api/overview}: who the caller is, the event log's head and oldest retained
 * number with the append rate between the last two history samples and this process's {@code
 * event_seq} lock hold times, every worker consumer's lag and pending age, the counts of the NATS
 * durables this process consumes, and the relay's lag when a bus is configured. Each read is one
 * short query; nothing is cached.
 */
@Path("/overview")
@Produces(MediaType.APPLICATION_JSON)
public final class OverviewResource {
  private final EventLog eventLog;
  private final Consumers consumers;
  private final Optional<RelayView> relay;
  private final ProcessReadings readings;
  private final History history;
  private final boolean readOnly;
  private final Clock clock;

  OverviewResource(
      EventLog eventLog,
      Consumers consumers,
      Optional<RelayView> relay,
      ProcessReadings readings,
      History history,
      boolean readOnly,
      Clock clock) {
    this.eventLog = eventLog;
    this.consumers = consumers;
    this.relay = relay;
    this.readings = readings;
    this.history = history;
    this.readOnly = readOnly;
    this.clock = clock;
  }

  /**
   * Reads the overview.
   *
   * @param security the caller, set by the token filter
   * @return the overview
   */
  @GET
  public ConsoleJson.Overview overview(@Context SecurityContext security) {
    Instant now = clock.now();
    boolean canAct = !readOnly && security.isUserInRole(Scope.ADMIN_WRITE.code());
    return new ConsoleJson.Overview(
        new ConsoleJson.Caller(security.getUserPrincipal().getName(), canAct, readOnly),
        new ConsoleJson.LogSummary(
            eventLog.head(),
            eventLog.minRetained(),
            ConsoleJson.number(history.lastAppendRate()),
            readings.seqLockHeld().map(ConsoleJson.SeqLockOut::of).orElse(null)),
        consumers.states().stream().map(s -> ConsoleJson.ConsumerOut.of(s, now)).toList(),
        readings.busConsumers().stream().map(ConsoleJson.DurableOut::of).toList(),
        relay.map(r -> ConsoleJson.RelayOut.of(r.state(), r.lag())).orElse(null),
        now.toString());
  }
}
