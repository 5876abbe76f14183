package dev.bothy.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The documents of the errors Jetty answers before a route runs. */
class ProblemMapperTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void a_503_before_routing_says_the_server_is_not_taking_requests_and_what_to_do()
      throws Exception {
    JsonNode problem = document(503);

    assertThat(problem.get("type").asText()).isEqualTo("unavailable");
    assertThat(problem.get("status").asInt()).isEqualTo(503);
    assertThat(problem.get("detail").asText()).contains("starting or stopping").contains("retry");
  }

  @Test
  void a_status_without_its_own_words_keeps_the_title_of_its_type() throws Exception {
    JsonNode problem = document(418);

    assertThat(problem.get("type").asText()).isEqualTo("invalid_request");
    assertThat(problem.get("detail").asText()).isEqualTo(problem.get("title").asText() + ".");
  }

  private static JsonNode document(int status) throws Exception {
    byte[] body = new ProblemMapper(JSON).beforeRouting(status);
    return JSON.readTree(new String(body, StandardCharsets.UTF_8));
  }
}
