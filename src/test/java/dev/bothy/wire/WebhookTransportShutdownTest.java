package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.bothy.testing.PgExtension;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stopped {@code all} role leaves no thread of the webhook transport: the pinned HTTP transport
 * (its connection pool and its deadline timer) is closed in the stop phase after the job workers.
 */
class WebhookTransportShutdownTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String DEADLINE_THREAD = "bothy-webhooks-deadline";

  @TempDir Path dir;

  @Test
  void a_stopped_app_leaves_no_webhook_transport_thread() throws Exception {
    AtomicInteger received = new AtomicInteger();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          received.incrementAndGet();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    try {
      ApiApp app =
          ApiApp.start(
              PG,
              dir,
              "webhooks:\n  allowedNetworks: [127.0.0.0/8]\n  allowPlainHttp: true\n"
                  + "consumer:\n  pollInterval: 200ms\n");
      try {
        String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
        HttpResponse<String> created = app.subscribe(url, 50);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        app.appendUntil(1, () -> received.get() > 0, Duration.ofSeconds(2), Duration.ofSeconds(30));
        assertThat(received.get())
            .as("a delivery ran, so the transport's timer started")
            .isPositive();
        assertThat(deadlineThreads())
            .as("the transport's timer runs while the app runs")
            .isNotEmpty();
      } finally {
        app.close();
      }
      awaitUntil(
          () -> deadlineThreads().isEmpty(), System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
      assertThat(deadlineThreads()).as("threads of the transport left after the stop").isEmpty();
    } finally {
      receiver.stop(0);
    }
  }

  private static List<Thread> deadlineThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals(DEADLINE_THREAD))
        .toList();
  }

  private static void awaitUntil(java.util.function.BooleanSupplier done, long deadlineNanos)
      throws InterruptedException {
    while (!done.getAsBoolean() && System.nanoTime() < deadlineNanos) {
      Thread.sleep(20);
    }
  }
}
