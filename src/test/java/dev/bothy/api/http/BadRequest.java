package dev.bothy.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.wire.ApiApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/**
 * One request the API must refuse, and the problem it must get: the cases of {@link
 * BadRequestsTest} and {@link TokensAndScopesTest}, which check them the same way.
 *
 * @param name what is wrong with it, the name of the test case
 * @param method the HTTP method
 * @param path the path with its query
 * @param token the bearer token, or null for none
 * @param contentType the Content-Type, or null for none
 * @param body the body, or null for none
 * @param headers more headers
 * @param status the status it must get
 * @param type the problem type it must get
 * @param pointer the JSON pointer the problem must name, or null when not checked
 */
record BadRequest(
    String name,
    String method,
    String path,
    String token,
    String contentType,
    String body,
    Map<String, String> headers,
    int status,
    String type,
    String pointer) {

  /** The name alone, so a parameterized test shows what is wrong with its case. */
  @Override
  public String toString() {
    return name;
  }

  /** A {@code POST /v1/events} as Alex with a JSON body. */
  static BadRequest post(String name, String body, int status, String type, String pointer) {
    return new BadRequest(
        name,
        "POST",
        "/v1/events",
        ApiApp.ALEX,
        "application/json",
        body,
        Map.of(),
        status,
        type,
        pointer);
  }

  /** A GET without a body; the pointer is not checked. */
  static BadRequest get(String name, String path, String token, int status, String type) {
    return new BadRequest(name, "GET", path, token, null, null, Map.of(), status, type, null);
  }

  /**
   * Sends it and checks the answer is its problem document, which leaks no stack trace, SQL or
   * token, that nothing was appended and that no ERROR line was logged.
   */
  void sendAndCheck(ApiApp app) throws Exception {
    long before = app.head();
    HttpRequest.Builder b = app.request(path, token);
    if (body != null) {
      b.method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::setHeader);
    HttpResponse<String> response = app.send(b.build());

    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode problem = ApiApp.json(response);
    assertThat(problem.get("type").asText()).isEqualTo(type);
    assertThat(problem.get("status").asInt()).isEqualTo(status);
    assertThat(problem.get("title").asText()).isNotBlank();
    assertThat(problem.get("detail").asText()).isNotBlank();
    if (pointer != null) {
      assertThat(problem.get("pointer").asText()).isEqualTo(pointer);
    }
    assertThat(response.body())
        .doesNotContain("Exception")
        .doesNotContain("at dev.bothy")
        .doesNotContain("select ")
        .doesNotContain("insert ")
        .doesNotContain(ApiApp.ALEX)
        .doesNotContain(ApiApp.SAM)
        .doesNotContain(ApiApp.ROBIN);
    if (status == 401) {
      assertThat(response.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"bothy\"");
    }
    assertThat(app.head()).isEqualTo(before);
    assertThat(app.errorLines()).as("no ERROR line for a bad request").isEmpty();
  }
}
