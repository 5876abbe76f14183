package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.bothy.testing.PgExtension;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code webhooks.maxConnectionsPerTarget} caps the requests one receiver gets at once, whatever
 * the {@code webhooks} queue's workers: the deliveries beyond it wait for a connection (D-WF-7).
 */
class WebhookConnectionLimitTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final int PER_TARGET = 2;
  private static final int WORKERS = 8;
  private static final int EVENTS = 8;

  @TempDir Path dir;

  @Test
  void one_receiver_never_gets_more_requests_at_once_than_the_per_target_limit() throws Exception {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicInteger received = new AtomicInteger();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // More receiving threads than workers, so the receiver never limits the overlap itself.
    ExecutorService receiving = Executors.newFixedThreadPool(WORKERS * 2);
    receiver.setExecutor(receiving);
    receiver.createContext(
        "/hook",
        exchange -> {
          int now = inFlight.incrementAndGet();
          mostAtOnce.accumulateAndGet(now, Math::max);
          boolean answered = false;
          try {
            exchange.getRequestBody().readAllBytes();
            // Held long enough that the workers' requests overlap.
            Thread.sleep(150);
            received.incrementAndGet();
            // Out of flight before the answer: a 204 without a body ends the exchange for the
            // JDK server at once, and the client's next request on that connection may start on
            // another thread before this one leaves its finally block.
            inFlight.decrementAndGet();
            answered = true;
            exchange.sendResponseHeaders(204, -1);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            if (!answered) {
              inFlight.decrementAndGet();
            }
            exchange.close();
          }
        });
    receiver.start();
    try {
      ApiApp app =
          ApiApp.start(
              PG,
              dir,
              "webhooks:\n  allowedNetworks: [127.0.0.0/8]\n  allowPlainHttp: true\n"
                  + "  maxConnectionsPerTarget: "
                  + PER_TARGET
                  + "\njobs:\n  queues:\n    default: 4\n    maintenance: 1\n    bus: 2\n"
                  + "    webhooks: "
                  + WORKERS
                  + "\nconsumer:\n  pollInterval: 200ms\n");
      try {
        String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
        HttpResponse<String> created = app.subscribe(url, 1000);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        app.appendUntil(
            EVENTS, () -> received.get() >= EVENTS, Duration.ofSeconds(10), Duration.ofSeconds(60));
        assertThat(received.get()).as("deliveries received").isGreaterThanOrEqualTo(EVENTS);
        assertThat(mostAtOnce.get())
            .as("requests in flight at once to the one receiver, with %d workers", WORKERS)
            .isEqualTo(PER_TARGET);
      } finally {
        app.close();
      }
    } finally {
      receiver.stop(0);
      receiving.shutdownNow();
    }
  }
}
