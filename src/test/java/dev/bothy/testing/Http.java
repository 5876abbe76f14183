package dev.bothy.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;

/** Small HTTP and port helpers for tests on loopback. */
public final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Http() {}

  /** A response: status and body. */
  public record Response(int status, String body) {}

  /**
   * Sends a GET to the loopback.
   *
   * @param port the port
   * @param path the path
   * @return the response
   * @throws IOException when nothing answers
   * @throws InterruptedException when interrupted
   */
  public static Response get(int port, String path) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build();
    HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.body());
  }

  /**
   * Sends GETs to the loopback until a body satisfies {@code done}, for at most 30 seconds: for a
   * page whose content comes after what the test waited for, such as a gauge that reads the
   * database within {@code database.metricsReadTimeout} and caches the read for a second, or a
   * timer a worker updates after its job's row commits. The caller asserts on the body returned.
   *
   * @param port the port
   * @param path the path
   * @param done what the body must show
   * @return the first body that satisfies {@code done}, else the last one read
   * @throws IOException when nothing answers
   * @throws InterruptedException when interrupted
   */
  public static String getUntil(int port, String path, Predicate<String> done)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String body = get(port, path).body();
    while (!done.test(body) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      body = get(port, path).body();
    }
    return body;
  }

  /**
   * Returns a port that was free a moment ago.
   *
   * @return the port
   * @throws IOException when no port can be bound
   */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
