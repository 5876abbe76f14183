package dev.bothy.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.bothy.api.http.ApiProblem;
import dev.bothy.api.http.OpenApiResource;
import dev.bothy.api.http.ProblemType;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The OpenAPI document: every route is in it, and the checked-in copy is current. */
class OpenApiDocumentTest {
  private static final java.nio.file.Path CHECKED_IN =
      java.nio.file.Path.of("docs/api/openapi.json");

  @Test
  void every_resource_class_of_the_api_is_in_the_document() {
    List<String> resources =
        new ClassFileImporter()
                .withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("dev.bothy.api")
                .stream()
                .filter(c -> c.isAnnotatedWith(Path.class))
                .map(JavaClass::getName)
                .sorted()
                .toList();
    assertThat(resources).isNotEmpty();
    assertThat(OpenApiResource.RESOURCES.stream().map(Class::getName).sorted().toList())
        .isEqualTo(resources);
  }

  @Test
  void every_route_is_in_the_document_with_its_method() throws Exception {
    JsonNode paths = new ObjectMapper().readTree(ApiModule.openApiDocument()).get("paths");
    List<String> routes = new ArrayList<>();
    for (Class<?> resource : OpenApiResource.RESOURCES) {
      for (Method m : resource.getDeclaredMethods()) {
        for (Class<? extends Annotation> verb :
            List.of(GET.class, HEAD.class, POST.class, PUT.class, PATCH.class, DELETE.class)) {
          if (m.isAnnotationPresent(verb)) {
            String path = template(resource, m);
            routes.add(verb.getSimpleName() + " " + path);
            assertThat(paths.has(path)).as(path).isTrue();
            assertThat(paths.get(path).has(verb.getSimpleName().toLowerCase(Locale.ROOT)))
                .as(verb.getSimpleName() + " " + path)
                .isTrue();
          }
        }
      }
    }
    assertThat(routes)
        .contains(
            "POST /v1/events",
            "GET /v1/events",
            "GET /v1/events/stream",
            "HEAD /v1/events/stream",
            "GET /v1/consumers",
            "GET /openapi.json");
    for (Map.Entry<String, JsonNode> p : paths.properties()) {
      for (Map.Entry<String, JsonNode> op : p.getValue().properties()) {
        if (!p.getKey().equals("/openapi.json")) {
          assertThat(op.getValue().has("security")).as(op.getKey() + " " + p.getKey()).isTrue();
        }
      }
    }
  }

  private static String template(Class<?> type, Method method) {
    String path = type.getAnnotation(Path.class).value();
    Path own = method.getAnnotation(Path.class);
    if (own != null) {
      path = path + "/" + own.value();
    }
    return path.replaceAll("/+", "/");
  }

  /**
   * The points of Redocly's recommended rules that the document broke ({@code .ci/run} lints the
   * whole document with them): servers, security on every operation (an empty list for the public
   * document), a 4XX answer on every operation, and examples that fit their schema.
   */
  @Test
  void the_document_has_servers_security_everywhere_and_a_payload_example_that_fits()
      throws Exception {
    JsonNode doc = new ObjectMapper().readTree(ApiModule.openApiDocument());

    assertThat(doc.path("servers").isArray()).as("servers").isTrue();
    assertThat(doc.path("servers")).isNotEmpty();
    JsonNode document = doc.path("paths").path("/openapi.json").path("get");
    assertThat(document.path("security").isArray()).as("security of /openapi.json").isTrue();
    assertThat(document.path("security")).as("public: no requirement").isEmpty();
    assertThat(document.path("responses").path("406").isMissingNode()).isFalse();

    JsonNode payload =
        doc.path("components")
            .path("schemas")
            .path("EventInput")
            .path("properties")
            .path("payload");
    assertThat(payload.path("type").asText()).isEqualTo("object");
    assertThat(payload.path("example").path("changedKeys").isArray()).isTrue();
    assertThat(payload.path("additionalProperties").isObject())
        .as("a payload value may be any JSON, not only an object: %s", payload)
        .isFalse();
  }

  @Test
  void every_operation_lists_the_answers_any_route_can_give_with_their_headers() throws Exception {
    JsonNode doc = new ObjectMapper().readTree(ApiModule.openApiDocument());
    int operations = 0;
    for (Map.Entry<String, JsonNode> path : doc.path("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        operations++;
        String name = op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey();
        JsonNode responses = op.getValue().path("responses");
        boolean body = false;
        for (Map.Entry<String, JsonNode> r : responses.properties()) {
          body |= r.getKey().startsWith("2") && r.getValue().has("content");
        }
        if (body) {
          assertThat(responses.has("406")).as("406 of %s", name).isTrue();
        }
        if (!path.getKey().equals("/openapi.json")) {
          assertThat(responses.path("503").path("$ref").asText())
              .as("503 of %s", name)
              .isEqualTo("#/components/responses/Unavailable");
          assertThat(responses.path("401").path("$ref").asText())
              .as("401 of %s", name)
              .isEqualTo("#/components/responses/Unauthorized");
        }
      }
    }
    assertThat(operations).isGreaterThan(15);
    JsonNode components = doc.path("components");
    assertThat(components.path("responses").path("Unavailable").path("headers").has("Retry-After"))
        .isTrue();
    assertThat(
            components
                .path("responses")
                .path("Unauthorized")
                .path("headers")
                .has("WWW-Authenticate"))
        .isTrue();

    JsonNode paths = doc.path("paths");
    for (String created : List.of("/v1/system/pings", "/v1/webhooks/subscriptions")) {
      assertThat(
              paths
                  .path(created)
                  .path("post")
                  .path("responses")
                  .path("201")
                  .path("headers")
                  .has("Location"))
          .as("Location on the 201 of POST %s", created)
          .isTrue();
    }
    for (String idempotent : List.of("/v1/events", "/v1/system/pings")) {
      assertThat(
              paths
                  .path(idempotent)
                  .path("post")
                  .path("responses")
                  .path("201")
                  .path("headers")
                  .has("Idempotent-Replayed"))
          .as("Idempotent-Replayed on the 201 of POST %s", idempotent)
          .isTrue();
    }
  }

  @Test
  void the_problem_schema_holds_every_member_a_problem_can_carry() throws Exception {
    JsonNode properties =
        new ObjectMapper()
            .readTree(ApiModule.openApiDocument())
            .path("components")
            .path("schemas")
            .path("Problem")
            .path("properties");
    List<String> names = new ArrayList<>();
    properties.fieldNames().forEachRemaining(names::add);
    List<String> expected =
        new ArrayList<>(List.of("type", "title", "status", "detail", "instance"));
    expected.addAll(ApiProblem.MEMBERS);
    assertThat(names).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ApiProblem.MEMBERS)
        .contains("pointer", "parameter", "header", "limit", "reason", "min_retained_seq");
  }

  @Test
  void a_problem_member_the_document_does_not_know_is_refused() {
    ApiProblem problem = ApiProblem.of(ProblemType.INVALID_REQUEST, "Bad.");
    assertThat(problem.with("parameter", "after").extensions()).containsEntry("parameter", "after");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> problem.with("hint", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hint");
  }

  @Test
  void the_checked_in_document_is_current() throws Exception {
    String current = ApiModule.openApiDocument();
    if (Boolean.getBoolean("bothy.regenerate")) {
      Files.writeString(CHECKED_IN, current, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(CHECKED_IN, StandardCharsets.UTF_8))
        .as(
            "docs/api/openapi.json is stale: run mvn test -Dtest=OpenApiDocumentTest -Dbothy.regenerate=true")
        .isEqualTo(current);
  }
}
