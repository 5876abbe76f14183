package dev.bothy.webhooks.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.bothy.testing.CapturedLog;
import dev.bothy.webhooks.app.HostResolver;
import dev.bothy.webhooks.app.OutgoingRequest;
import dev.bothy.webhooks.app.ReceiverBusy;
import dev.bothy.webhooks.app.SendResult;
import dev.bothy.webhooks.domain.Cidr;
import dev.bothy.webhooks.domain.DeliveryVerdict;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookSignature;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport against a receiver on 127.0.0.1, with {@code allowedNetworks: [127.0.0.0/8]} and a
 * scripted resolver that maps {@code receiver.example.com} to the loopback address.
 */
class PinnedHttpTransportTest {
  private static final String HOST = "receiver.example.com";
  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  private static final Duration CAP = Duration.ofMinutes(10);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final NetworkPolicy LOOPBACK_ALLOWED =
      new NetworkPolicy(List.of(Cidr.parse("127.0.0.0/8")), true);

  private LoopbackReceiver receiver;
  private PinnedHttpTransport transport;

  @BeforeEach
  void start() throws IOException {
    receiver = LoopbackReceiver.start();
  }

  @AfterEach
  void stop() {
    if (transport != null) {
      transport.close();
    }
    receiver.close();
  }

  private PinnedHttpTransport transport(NetworkPolicy policy, ScriptedResolver resolver, int max) {
    transport =
        new PinnedHttpTransport(policy, resolver, max, ConnectionSettings.defaults(TIMEOUT));
    return transport;
  }

  private static OutgoingRequest request(URI target, String body, Duration timeout) {
    WebhookSecret secret = WebhookSecret.generate();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long ts = NOW.getEpochSecond();
    return new OutgoingRequest(
        target,
        Map.of(
            "webhook-id",
            "msg_1",
            "webhook-timestamp",
            Long.toString(ts),
            "webhook-signature",
            WebhookSignature.sign("msg_1", ts, bytes, List.of(secret)),
            "content-type",
            "application/json"),
        bytes,
        timeout);
  }

  private static DeliveryVerdict verdict(SendResult result) {
    return DeliveryVerdict.classify(result, NOW, CAP);
  }

  @Test
  void a_2xx_is_delivered_with_the_headers_and_the_exact_body_to_the_host_name() {
    ScriptedResolver resolver = ScriptedResolver.answering("127.0.0.1");
    receiver.respond(LoopbackReceiver.status(200, "thanks"));
    OutgoingRequest request = request(receiver.uri(HOST, "/hook?a=1"), "{\"n\":1}", TIMEOUT);

    SendResult result = transport(LOOPBACK_ALLOWED, resolver, 100).send(request);

    assertThat(result.status()).isEqualTo(200);
    assertThat(result.errorKind()).isEmpty();
    assertThat(result.bodyExcerpt()).isEqualTo("thanks");
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.Delivered());
    assertThat(resolver.calls()).isEqualTo(1);
    LoopbackReceiver.Received got = receiver.received().get(0);
    assertThat(got.method()).isEqualTo("POST");
    assertThat(got.path()).isEqualTo("/hook?a=1");
    assertThat(got.body()).isEqualTo("{\"n\":1}".getBytes(StandardCharsets.UTF_8));
    assertThat(got.headers())
        .containsEntry("host", HOST + ":" + receiver.port())
        .containsEntry("webhook-id", "msg_1")
        .containsEntry("webhook-signature", request.headers().get("webhook-signature"))
        .containsEntry("content-type", "application/json")
        .containsEntry("user-agent", PinnedHttpTransport.USER_AGENT)
        .doesNotContainKey("cookie")
        .doesNotContainKey("authorization");
  }

  @Test
  void a_path_beyond_ascii_goes_out_percent_encoded() {
    // A request line carries ASCII only (RFC 9112); the URL as stored may hold any character.
    receiver.respond(LoopbackReceiver.status(204, ""));
    OutgoingRequest request =
        request(receiver.uri(HOST, "/h\u00e9/\u00fcber?q=\u00e9"), "{}", TIMEOUT);

    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100).send(request);

    assertThat(result.status()).isEqualTo(204);
    assertThat(receiver.received().get(0).path()).isEqualTo("/h%C3%A9/%C3%BCber?q=%C3%A9");
  }

  @Test
  void gone_is_reported() {
    receiver.respond(LoopbackReceiver.status(410, ""));
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
            .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.status()).isEqualTo(410);
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.Gone());
  }

  @Test
  void too_many_requests_brings_its_retry_after() {
    receiver.respond(
        (exchange, release) -> {
          exchange.getResponseHeaders().add("Retry-After", "120");
          exchange.sendResponseHeaders(429, -1);
          exchange.close();
        });
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
            .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.status()).isEqualTo(429);
    assertThat(result.responseHeaders()).containsEntry("retry-after", "120");
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.RetryAfter(Duration.ofSeconds(120)));
  }

  @Test
  void unavailable_without_retry_after_is_a_failure() {
    receiver.respond(LoopbackReceiver.status(503, "down"));
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
            .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.status()).isEqualTo(503);
    assertThat(result.bodyExcerpt()).isEqualTo("down");
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.Failed("status"));
  }

  @Test
  void a_redirect_is_not_followed() {
    receiver.respond(
        (exchange, release) -> {
          exchange.getResponseHeaders().add("Location", receiver.uri(HOST, "/moved").toString());
          exchange.sendResponseHeaders(307, -1);
          exchange.close();
        });
    ScriptedResolver resolver = ScriptedResolver.answering("127.0.0.1").then("127.0.0.1");
    SendResult result =
        transport(LOOPBACK_ALLOWED, resolver, 100)
            .send(request(receiver.uri(HOST, "/hook"), "{}", TIMEOUT));
    assertThat(result.status()).isEqualTo(307);
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.Failed("redirect"));
    assertThat(receiver.received())
        .extracting(LoopbackReceiver.Received::path)
        .containsExactly("/hook");
    assertThat(resolver.calls()).isEqualTo(1);
  }

  @Test
  void a_receiver_slower_than_the_timeout_ends_the_attempt_as_a_timeout() {
    receiver.respond(
        (exchange, release) -> {
          awaitQuietly(release);
          exchange.close();
        });
    Duration timeout = Duration.ofMillis(300);
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
            .send(request(receiver.uri(HOST, "/"), "{}", timeout));
    assertThat(result.errorKind()).contains(SendResult.TIMEOUT);
    assertThat(result.status()).isZero();
    assertThat(result.elapsed()).isGreaterThanOrEqualTo(timeout).isLessThan(TIMEOUT);
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.Failed("timeout"));
  }

  @Test
  void a_receiver_whose_connections_stay_busy_past_the_connection_wait_is_busy_not_an_attempt()
      throws Exception {
    receiver.respond(
        (exchange, release) -> {
          awaitQuietly(release);
          LoopbackReceiver.status(200, "").respond(exchange, release);
        });
    Duration wait = Duration.ofMillis(200);
    transport =
        new PinnedHttpTransport(
            LOOPBACK_ALLOWED,
            // One lookup per send.
            ScriptedResolver.answering("127.0.0.1").then("127.0.0.1"),
            100,
            ConnectionSettings.limits(10, 1, TIMEOUT, wait));
    OutgoingRequest request = request(receiver.uri(HOST, "/"), "{}", TIMEOUT);
    java.util.concurrent.ExecutorService first =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      // The first request takes the target's only connection and is held by the receiver.
      java.util.concurrent.Future<SendResult> held = first.submit(() -> transport.send(request));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (receiver.received().isEmpty() && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(receiver.received()).hasSize(1);

      long start = System.nanoTime();
      Throwable thrown =
          org.assertj.core.api.Assertions.catchThrowable(() -> transport.send(request));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(thrown)
          .as("a send that never got a connection")
          .isInstanceOfSatisfying(
              ReceiverBusy.class, busy -> assertThat(busy.waited()).isEqualTo(wait));
      // HttpCore waits in whole milliseconds and may come back a fraction early.
      assertThat(took).isGreaterThanOrEqualTo(wait.minusMillis(5)).isLessThan(TIMEOUT);
      assertThat(receiver.received()).as("nothing was sent").hasSize(1);
      receiver.release().countDown();
      SendResult heldResult = held.get(10, TimeUnit.SECONDS);
      assertThat(heldResult.status()).as("the held request: %s", heldResult).isEqualTo(200);
    } finally {
      first.shutdownNow();
    }
  }

  @Test
  void an_async_send_returns_before_the_answer_and_looks_the_name_up_on_the_given_threads()
      throws Exception {
    receiver.respond(
        (exchange, release) -> {
          awaitQuietly(release);
          LoopbackReceiver.status(200, "held").respond(exchange, release);
        });
    List<String> lookedUpOn = new java.util.concurrent.CopyOnWriteArrayList<>();
    HostResolver noting =
        host -> {
          lookedUpOn.add(Thread.currentThread().getName());
          return List.of(InetAddress.getByName("127.0.0.1"));
        };
    transport =
        new PinnedHttpTransport(
            LOOPBACK_ALLOWED, noting, 100, ConnectionSettings.limits(10, 1, TIMEOUT, TIMEOUT));
    java.util.concurrent.ExecutorService lookups =
        java.util.concurrent.Executors.newSingleThreadExecutor(r -> new Thread(r, "test-lookups"));
    try {
      java.util.concurrent.CompletableFuture<SendResult> sent =
          transport.sendAsync(request(receiver.uri(HOST, "/"), "{}", TIMEOUT), lookups);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (receiver.received().isEmpty() && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(receiver.received()).as("the request reached the receiver").hasSize(1);
      assertThat(sent).as("no answer yet, and no thread of the caller waits for it").isNotDone();

      receiver.release().countDown();
      SendResult result = sent.get(10, TimeUnit.SECONDS);
      assertThat(result.status()).isEqualTo(200);
      assertThat(result.bodyExcerpt()).isEqualTo("held");
      assertThat(lookedUpOn).containsExactly("test-lookups");
    } finally {
      lookups.shutdownNow();
    }
  }

  @Test
  void cancelling_an_async_send_drops_its_request_and_frees_its_connection() throws Exception {
    java.util.concurrent.atomic.AtomicInteger requests =
        new java.util.concurrent.atomic.AtomicInteger();
    receiver.respond(
        (exchange, release) -> {
          if (requests.incrementAndGet() == 1) {
            // The first request is held until the test ends; the others are answered.
            awaitQuietly(release);
          }
          LoopbackReceiver.status(200, "").respond(exchange, release);
        });
    transport =
        new PinnedHttpTransport(
            LOOPBACK_ALLOWED,
            ScriptedResolver.answering("127.0.0.1").then("127.0.0.1"),
            100,
            ConnectionSettings.limits(10, 1, TIMEOUT, Duration.ofMillis(500)));
    try {
      java.util.concurrent.CompletableFuture<SendResult> held =
          transport.sendAsync(request(receiver.uri(HOST, "/"), "{}", TIMEOUT), Runnable::run);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (receiver.received().isEmpty() && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(receiver.received()).hasSize(1);

      held.cancel(true);

      // The target's only connection went with the cancelled request, so the next one gets one.
      SendResult next = transport.send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
      assertThat(next.status()).as("%s", next).isEqualTo(200);
    } finally {
      receiver.release().countDown();
    }
  }

  @Test
  void closing_the_transport_ends_its_threads_without_an_error_in_the_log() {
    try (CapturedLog client = CapturedLog.of(LoggerFactory.getLogger("org.apache.hc"))) {
      for (int round = 0; round < 20; round++) {
        PinnedHttpTransport closing =
            new PinnedHttpTransport(
                LOOPBACK_ALLOWED,
                ScriptedResolver.answering("127.0.0.1"),
                100,
                ConnectionSettings.defaults(TIMEOUT));
        if (round % 2 == 0) {
          // A kept-alive connection open at the close, and none on every other round.
          assertThat(closing.send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT)).status())
              .isEqualTo(200);
        }
        closing.close();
      }
      assertThat(client.events())
          .as("what HttpClient logged at warning or above")
          .filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
          .extracting(ILoggingEvent::getFormattedMessage)
          .isEmpty();
    }
  }

  @Test
  void a_body_longer_than_the_excerpt_is_answered_once_the_excerpt_is_read() {
    receiver.respond(
        (exchange, release) -> {
          exchange.sendResponseHeaders(200, 0);
          OutputStream out = exchange.getResponseBody();
          // 150 characters, fewer bytes than four per character, then the body stays open.
          out.write("\u00e9".repeat(150).getBytes(StandardCharsets.UTF_8));
          out.flush();
          awaitQuietly(release);
          exchange.close();
        });
    Duration timeout = Duration.ofSeconds(5);
    try {
      SendResult result =
          transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
              .send(request(receiver.uri(HOST, "/"), "{}", timeout));
      assertThat(result.errorKind()).as("%s", result).isEmpty();
      assertThat(result.status()).isEqualTo(200);
      assertThat(result.bodyExcerpt()).isEqualTo("\u00e9".repeat(100));
      assertThat(result.elapsed()).as("not held until the timeout").isLessThan(timeout);
    } finally {
      receiver.release().countDown();
    }
  }

  @Test
  void a_body_that_trickles_past_the_timeout_ends_the_attempt_as_a_timeout() {
    receiver.respond(
        (exchange, release) -> {
          exchange.sendResponseHeaders(200, 0);
          OutputStream out = exchange.getResponseBody();
          out.write("partial".getBytes(StandardCharsets.UTF_8));
          out.flush();
          awaitQuietly(release);
          exchange.close();
        });
    Duration timeout = Duration.ofMillis(500);
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 1000)
            .send(request(receiver.uri(HOST, "/"), "{}", timeout));
    assertThat(result.errorKind()).contains(SendResult.TIMEOUT);
    assertThat(result.elapsed()).isGreaterThanOrEqualTo(timeout).isLessThan(TIMEOUT);
  }

  @Test
  void a_big_body_is_cut_and_the_rest_never_read() {
    String big = "x".repeat(20_000);
    receiver.respond(
        (exchange, release) -> {
          exchange.sendResponseHeaders(500, 0);
          OutputStream out = exchange.getResponseBody();
          out.write(big.getBytes(StandardCharsets.UTF_8));
          out.flush();
          // The body never ends: a transport that read it to the end would wait for the timeout.
          awaitQuietly(release);
          exchange.close();
        });
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
            .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.status()).isEqualTo(500);
    assertThat(result.errorKind()).isEmpty();
    assertThat(result.bodyExcerpt()).isEqualTo("x".repeat(100));
    assertThat(result.elapsed()).isLessThan(TIMEOUT);
  }

  @Test
  void plain_http_is_refused_unless_allowed() {
    ScriptedResolver resolver = ScriptedResolver.answering("127.0.0.1");
    NetworkPolicy httpsOnly = new NetworkPolicy(List.of(Cidr.parse("127.0.0.0/8")), false);
    SendResult result =
        transport(httpsOnly, resolver, 100).send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.errorKind()).contains(SendResult.REFUSED_ADDRESS);
    assertThat(resolver.calls()).isZero();
    assertThat(receiver.received()).isEmpty();
  }

  @Test
  void loopback_is_refused_when_no_allowed_network_holds_it() {
    ScriptedResolver resolver = ScriptedResolver.answering("127.0.0.1");
    SendResult result =
        transport(new NetworkPolicy(List.of(), true), resolver, 100)
            .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.errorKind()).contains(SendResult.REFUSED_ADDRESS);
    assertThat(verdict(result)).isEqualTo(new DeliveryVerdict.Failed("refused_address"));
    assertThat(receiver.received()).isEmpty();
  }

  @Test
  void a_public_answer_followed_by_a_private_one_is_refused() {
    ScriptedResolver resolver = ScriptedResolver.answering("93.184.215.14", "10.0.0.7");
    SendResult result =
        transport(LOOPBACK_ALLOWED, resolver, 100)
            .send(request(URI.create("http://" + HOST + "/"), "{}", TIMEOUT));
    assertThat(result.errorKind()).contains(SendResult.REFUSED_ADDRESS);
    assertThat(resolver.calls()).isEqualTo(1);
  }

  @Test
  void the_connection_goes_to_the_checked_address_without_a_second_lookup() {
    // The first lookup answers the receiver; any second lookup would answer a private address.
    ScriptedResolver resolver = ScriptedResolver.answering("127.0.0.1").then("10.0.0.7");
    PinnedHttpTransport pinned = transport(LOOPBACK_ALLOWED, resolver, 100);

    SendResult first = pinned.send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(first.status()).isEqualTo(200);
    assertThat(resolver.calls()).isEqualTo(1);
    assertThat(receiver.received()).hasSize(1);

    // The next attempt looks up again (DNS answers change) and is refused before connecting,
    // although a pooled connection to the receiver is still open.
    SendResult second = pinned.send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(second.errorKind()).contains(SendResult.REFUSED_ADDRESS);
    assertThat(resolver.calls()).isEqualTo(2);
    assertThat(receiver.received()).hasSize(1);
  }

  @Test
  void a_lookup_that_uses_up_the_timeout_ends_the_attempt_as_a_timeout() {
    Duration timeout = Duration.ofMillis(200);
    java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
    dev.bothy.webhooks.app.HostResolver slow =
        host -> {
          // Bounded: waits out the attempt's timeout and a little more, then answers.
          try {
            never.await(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return List.of(java.net.InetAddress.getLoopbackAddress());
        };
    transport =
        new PinnedHttpTransport(LOOPBACK_ALLOWED, slow, 100, ConnectionSettings.defaults(TIMEOUT));
    SendResult result = transport.send(request(receiver.uri(HOST, "/"), "{}", timeout));
    assertThat(result.errorKind()).contains(SendResult.TIMEOUT);
    assertThat(receiver.received()).isEmpty();
  }

  @Test
  void a_host_that_does_not_resolve_is_a_dns_error() {
    ScriptedResolver resolver = new ScriptedResolver();
    SendResult result =
        transport(LOOPBACK_ALLOWED, resolver, 100)
            .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(result.errorKind()).contains(SendResult.DNS);
  }

  @Test
  void a_closed_port_is_a_connect_error() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    SendResult result =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
            .send(request(URI.create("http://" + HOST + ":" + closed + "/"), "{}", TIMEOUT));
    assertThat(result.errorKind()).contains(SendResult.CONNECT);
  }

  @Test
  void https_to_a_receiver_that_answers_without_tls_is_a_tls_error() throws Exception {
    try (ServerSocket plain = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread answer =
          new Thread(
              () -> {
                try (java.net.Socket socket = plain.accept()) {
                  socket
                      .getOutputStream()
                      .write(
                          "HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (IOException closed) {
                  // The test ended first; nothing to answer.
                }
              },
              "plain-answer");
      answer.setDaemon(true);
      answer.start();
      SendResult result =
          transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
              .send(
                  request(
                      URI.create("https://" + HOST + ":" + plain.getLocalPort() + "/"),
                      "{}",
                      TIMEOUT));
      assertThat(result.errorKind()).contains(SendResult.TLS);
      answer.join(TimeUnit.SECONDS.toMillis(30));
    }
  }

  @Test
  void no_proxy_is_taken_from_the_system_properties() throws IOException {
    try (LoopbackReceiver proxy = LoopbackReceiver.start()) {
      String oldHost = System.getProperty("http.proxyHost");
      String oldPort = System.getProperty("http.proxyPort");
      System.setProperty("http.proxyHost", "127.0.0.1");
      System.setProperty("http.proxyPort", Integer.toString(proxy.port()));
      try {
        SendResult result =
            transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1"), 100)
                .send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
        assertThat(result.status()).isEqualTo(200);
        assertThat(receiver.received()).hasSize(1);
        assertThat(proxy.received()).isEmpty();
      } finally {
        restore("http.proxyHost", oldHost);
        restore("http.proxyPort", oldPort);
      }
    }
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }

  @Test
  void a_cookie_set_by_a_receiver_is_not_sent_back() {
    receiver.respond(
        (exchange, release) -> {
          exchange.getResponseHeaders().add("Set-Cookie", "session=alex; Path=/");
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    PinnedHttpTransport pinned =
        transport(LOOPBACK_ALLOWED, ScriptedResolver.answering("127.0.0.1").then("127.0.0.1"), 100);
    pinned.send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    pinned.send(request(receiver.uri(HOST, "/"), "{}", TIMEOUT));
    assertThat(receiver.received()).hasSize(2);
    assertThat(receiver.received().get(1).headers()).doesNotContainKey("cookie");
  }

  @Test
  void a_result_names_no_body_and_a_request_names_no_signature() {
    OutgoingRequest request = request(receiver.uri(HOST, "/?token=sam"), "{\"card\":1}", TIMEOUT);
    assertThat(request.toString())
        .doesNotContain(request.headers().get("webhook-signature"))
        .doesNotContain("card")
        .doesNotContain("token");
    SendResult result = SendResult.response(200, Map.of(), "private reply", Duration.ofMillis(5));
    assertThat(result.toString()).doesNotContain("private reply");
    assertThat(SendResult.error("io", Duration.ZERO).errorKind()).isEqualTo(Optional.of("io"));
  }

  @Test
  void no_log_line_carries_the_secret_the_signature_or_a_body() throws Exception {
    WebhookSecret secret = WebhookSecret.generate();
    String marker = "alex-card-4242";
    byte[] body = ("{\"note\":\"" + marker + "\"}").getBytes(StandardCharsets.UTF_8);
    String signature = WebhookSignature.sign("msg_9", 1, body, List.of(secret));
    Map<String, String> headers =
        Map.of("webhook-id", "msg_9", "webhook-timestamp", "1", "webhook-signature", signature);
    receiver.respond(LoopbackReceiver.status(500, "reply " + marker));
    // The HTTP client's own DEBUG lines quote the request; the application's default logging
    // holds them at INFO (BothyConfiguration.QUIET_LOGGERS), but a Dropwizard test application
    // that ran earlier in this JVM leaves logback reset to DEBUG everywhere: set the default here.
    ch.qos.logback.classic.Logger client =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.apache.hc.client5.http");
    ch.qos.logback.classic.Level before = client.getLevel();
    client.setLevel(ch.qos.logback.classic.Level.INFO);
    try (CapturedLog log = CapturedLog.of(LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))) {
      PinnedHttpTransport pinned =
          transport(
              LOOPBACK_ALLOWED,
              ScriptedResolver.answering("127.0.0.1").then("10.0.0.1").then("127.0.0.1"),
              100);
      URI target = receiver.uri(HOST, "/?token=" + marker);
      pinned.send(new OutgoingRequest(target, headers, body, TIMEOUT));
      pinned.send(new OutgoingRequest(target, headers, body, TIMEOUT));
      receiver.respond(
          (exchange, release) -> {
            awaitQuietly(release);
            exchange.close();
          });
      pinned.send(new OutgoingRequest(target, headers, body, Duration.ofMillis(200)));
      pinned.send(new OutgoingRequest(target, headers, body, TIMEOUT));
      // The capture sees this module's lines: a canary written the way the transport would.
      LoggerFactory.getLogger(PinnedHttpTransport.class).info("capture canary");
      List<String> lines = new ArrayList<>();
      for (ILoggingEvent event : log.events()) {
        lines.add(event.getFormattedMessage());
        for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
          lines.add(String.valueOf(t.getMessage()));
        }
      }
      assertThat(lines)
          .contains("capture canary")
          .noneMatch(line -> line.contains(marker))
          .noneMatch(line -> line.contains(secret.encoded().substring(6, 20)))
          .noneMatch(line -> line.contains(signature.substring(3, 20)));
    } finally {
      client.setLevel(before);
    }
  }

  private static void awaitQuietly(java.util.concurrent.CountDownLatch latch) {
    try {
      // Bounded: the receiver closes (and releases) at the end of every test.
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
