package dev.bothy.webhooks.app;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A webhook receiver on 127.0.0.1 and a free port: it records every request and answers from a
 * script, then with 204. The delivery tests send to it through the real pinned transport, allowed
 * by {@code webhooks.allowedNetworks: [127.0.0.0/8]}.
 */
final class LoopbackReceiver implements AutoCloseable {
  /** One received request: its headers (names in lower case) and its body. */
  record Received(Map<String, String> headers, byte[] body) {}

  private record Answer(int status, Map<String, String> headers, long delayMillis, String body) {
    Answer(int status, Map<String, String> headers, long delayMillis) {
      this(status, headers, delayMillis, "answer " + status);
    }
  }

  final List<Received> sent = Collections.synchronizedList(new ArrayList<>());
  private final Deque<Answer> script = new ArrayDeque<>();
  private final HttpServer server;

  LoopbackReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/hooks",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          Map<String, String> headers = new HashMap<>();
          exchange
              .getRequestHeaders()
              .forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
          sent.add(new Received(headers, body));
          Answer answer;
          synchronized (script) {
            answer = script.poll();
          }
          if (answer == null) {
            answer = new Answer(204, Map.of(), 0);
          }
          if (answer.delayMillis() > 0) {
            try {
              Thread.sleep(answer.delayMillis());
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
          byte[] text = answer.body().getBytes(StandardCharsets.UTF_8);
          if (answer.status() == 204) {
            exchange.sendResponseHeaders(204, -1);
          } else {
            exchange.sendResponseHeaders(answer.status(), text.length);
            exchange.getResponseBody().write(text);
          }
          exchange.close();
        });
    server.start();
  }

  /** The target URL of the receiver. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks";
  }

  /** Answers the next request with this status and headers. */
  LoopbackReceiver then(int status, Map<String, String> headers) {
    synchronized (script) {
      script.add(new Answer(status, headers, 0));
    }
    return this;
  }

  /** Answers the next request with this status and body. */
  LoopbackReceiver thenBody(int status, String body) {
    synchronized (script) {
      script.add(new Answer(status, Map.of(), 0, body));
    }
    return this;
  }

  /** Answers the next request with this status only after a delay. */
  LoopbackReceiver thenAfter(java.time.Duration delay, int status) {
    synchronized (script) {
      script.add(new Answer(status, Map.of(), delay.toMillis()));
    }
    return this;
  }

  /** The numbers of the events received, in order, read from the fixture's body {"seq":n}. */
  List<Long> seqs() {
    List<Long> seqs = new ArrayList<>();
    synchronized (sent) {
      for (Received r : sent) {
        String body = new String(r.body(), StandardCharsets.UTF_8);
        seqs.add(Long.parseLong(body.replaceAll("[^0-9]", "")));
      }
    }
    return seqs;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
