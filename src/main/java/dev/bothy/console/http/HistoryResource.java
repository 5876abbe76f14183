package dev.bothy.console.http;

import dev.bothy.console.domain.History;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;

/**
 * {@code GET /console/api/history}: the samples of the process's ring buffer, oldest first, for the
 * page's charts (lag and pending age per consumer, append rate, relay lag). Read from memory, never
 * from the database; the window is {@code console.historyWindow} at most.
 */
@Path("/history")
@Produces(MediaType.APPLICATION_JSON)
public final class HistoryResource {
  private final History history;
  private final Duration interval;
  private final Duration window;

  HistoryResource(History history, Duration interval, Duration window) {
    this.history = history;
    this.interval = interval;
    this.window = window;
  }

  /**
   * Reads the history.
   *
   * @return the samples
   */
  @GET
  public ConsoleJson.HistoryOut history() {
    return new ConsoleJson.HistoryOut(
        interval.toMillis() / 1000.0,
        window.toMillis() / 1000.0,
        history.points().stream().map(ConsoleJson.SampleOut::of).toList());
  }
}
