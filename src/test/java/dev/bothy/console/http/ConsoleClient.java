package dev.bothy.console.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.wire.ApiApp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A client of the console's API on a running application's admin port, for the console tests. */
final class ConsoleClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ApiApp app;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  ConsoleClient(ApiApp app) {
    this.app = app;
  }

  HttpResponse<String> get(String path, String token) throws IOException, InterruptedException {
    return send(request(path, token).GET().build());
  }

  HttpResponse<String> post(String path, String token, String body)
      throws IOException, InterruptedException {
    return send(
        request(path, token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  HttpResponse<String> delete(String path, String token) throws IOException, InterruptedException {
    return send(request(path, token).DELETE().build());
  }

  static JsonNode json(HttpResponse<String> response) throws IOException {
    return JSON.readTree(response.body());
  }

  private HttpRequest.Builder request(String path, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.adminPort() + path))
            .timeout(Duration.ofSeconds(20));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
