package dev.bothy.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

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
