package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.api.domain.TokenHash;
import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.Http;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar under the OpenTelemetry agent, its spans written by the agent's console exporter:
 * an idle {@code all} process records no span (its job fetchers, completer, maintenance, tail,
 * worker consumer and LISTEN connections poll outside any recorded trace), and an HTTP append is
 * one trace with its statements (each worker consumer's round over the new event is a root trace of
 * its own). Runs in the integration-test phase, after {@code package} copied the agent.
 */
class TracingIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final Duration QUIET = Duration.ofSeconds(2);
  // Many polls of every loop: jobs.pollInterval and sync.tailPollInterval are set to 200ms below.
  private static final Duration IDLE = Duration.ofSeconds(5);
  private static final String TOKEN = "alex-tracing-token-0123456789";
  // The console exporter's line: 'name' : traceId spanId KIND [tracer: scope] attributes
  private static final Pattern SPAN =
      Pattern.compile("'([^']*)' : ([0-9a-f]{32}) ([0-9a-f]{16}) ([A-Z]+) \\[tracer: ");

  @TempDir Path dir;

  private record Span(String name, String traceId, String kind) {}

  @Test
  void an_idle_process_records_no_span_and_an_http_append_is_one_trace_with_its_statements()
      throws Exception {
    Path agent = Path.of("target/otel/opentelemetry-javaagent.jar").toAbsolutePath();
    assertThat(agent).as("package copies the agent").isRegularFile();
    int app = Http.freePort();
    int admin = Http.freePort();
    Path config = dir.resolve("bothy.yml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "server:",
            "  applicationConnectors:",
            "    - type: http",
            "      port: " + app,
            "  adminConnectors:",
            "    - type: http",
            "      port: " + admin,
            "database:",
            "  embedded:",
            "    port: " + Http.freePort(),
            "jobs:",
            "  pollInterval: 200ms",
            "sync:",
            "  tailPollInterval: 200ms",
            "api:",
            "  tokens:",
            "    - name: alex",
            "      sha256: " + TokenHash.sha256Hex(TOKEN),
            "      scopes: [events:append, events:read]",
            ""));
    List<String> jvm =
        List.of(
            "-javaagent:" + agent,
            "-Dotel.traces.exporter=console",
            "-Dotel.metrics.exporter=none",
            "-Dotel.logs.exporter=none",
            "-Dotel.service.name=bothy");
    try (ChildJvm all = ChildJvm.startJar(dir, jvm, "all", config.toString())) {
      ServerRolesTest.awaitReady(all, admin);
      // The start's own work (migrations, the first periodic jobs) may be traced: wait it out.
      int settled = awaitQuiet(all);

      Thread.sleep(IDLE.toMillis());

      List<Span> idle = spans(all.output()).subList(settled, spans(all.output()).size());
      assertThat(idle).as("spans of an idle process over " + IDLE).isEmpty();

      HttpResponse<String> appended =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app + "/v1/events"))
                      .timeout(Duration.ofSeconds(10))
                      .header("Authorization", "Bearer " + TOKEN)
                      .header("Content-Type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"events\":[{\"type\":\"settings.updated\",\"resource\":"
                                  + "{\"type\":\"user\",\"id\":"
                                  + "\"6f1c2b1e-4d3a-4c55-9a1e-0b7f2f6d8e11\"},"
                                  + "\"payload\":{\"changedKeys\":[\"locale\"]}}]}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(appended.statusCode()).as(appended.body()).isEqualTo(201);
      int afterAppend = awaitQuiet(all);
      List<Span> append = spans(all.output()).subList(settled, afterAppend);

      assertThat(append).as("the append's spans").isNotEmpty();
      // The all role runs the worker consumers webhooks and bus: each round over the new event
      // is a root trace of its own, which holds a span consumer round <name>. Every other span
      // after the append belongs to the request's one trace.
      List<String> consumerTraces =
          append.stream()
              .filter(s -> s.name().startsWith("consumer round "))
              .map(Span::traceId)
              .toList();
      List<Span> request =
          append.stream().filter(s -> !consumerTraces.contains(s.traceId())).toList();
      assertThat(request).as("the request's spans: %s", append).isNotEmpty();
      assertThat(request)
          .as("one trace: %s", append)
          .extracting(Span::traceId)
          .containsOnly(request.get(0).traceId());
      assertThat(append)
          .as("the request's trace is not the consumer's")
          .filteredOn(s -> consumerTraces.contains(s.traceId()))
          .noneSatisfy(s -> assertThat(s.kind()).isEqualTo("SERVER"));
      assertThat(request)
          .anySatisfy(
              s -> {
                assertThat(s.kind()).isEqualTo("SERVER");
                assertThat(s.name()).contains("/v1/events");
              });
      assertThat(request)
          .as("the statements of the unit of work")
          .anySatisfy(s -> assertThat(s.kind()).isEqualTo("CLIENT"));
      all.terminate(Duration.ofSeconds(60));
    }
  }

  private static List<Span> spans(String output) {
    List<Span> spans = new ArrayList<>();
    Matcher m = SPAN.matcher(output);
    while (m.find()) {
      spans.add(new Span(m.group(1), m.group(2), m.group(4)));
    }
    return spans;
  }

  /** Waits until no new span has been written for {@link #QUIET}; returns how many there are. */
  private static int awaitQuiet(ChildJvm child) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    int seen = spans(child.output()).size();
    long quietSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      Thread.sleep(100);
      int now = spans(child.output()).size();
      if (now != seen) {
        seen = now;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince >= QUIET.toNanos()) {
        return seen;
      }
    }
    throw new AssertionError("spans kept coming for " + WAIT + ":\n" + child.output());
  }
}
