package dev.bothy.webhooks.adapters.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A webhook receiver on 127.0.0.1 and a free port: records every request, answers as the test says.
 * A responder may wait on {@link #release()} to stall; {@link #close()} releases it.
 */
final class LoopbackReceiver implements AutoCloseable {
  /** A request as received: lower-case header names, first value of each. */
  record Received(String method, String path, Map<String, String> headers, byte[] body) {}

  /** Answers one exchange; the request is already recorded and its body read. */
  @FunctionalInterface
  interface Responder {
    void respond(HttpExchange exchange, CountDownLatch release) throws IOException;
  }

  private final HttpServer server;
  private final ExecutorService threads;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private volatile Responder responder = status(200, "");

  private LoopbackReceiver(HttpServer server, ExecutorService threads) {
    this.server = server;
    this.threads = threads;
  }

  static LoopbackReceiver start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    ExecutorService threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "loopback-receiver");
              t.setDaemon(true);
              return t;
            });
    LoopbackReceiver receiver = new LoopbackReceiver(server, threads);
    server.createContext("/", receiver::handle);
    server.setExecutor(threads);
    server.start();
    return receiver;
  }

  /** Answers a fixed status and body. */
  static Responder status(int status, String body) {
    return (exchange, release) -> {
      byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
      exchange.close();
    };
  }

  private void handle(HttpExchange exchange) throws IOException {
    Map<String, String> headers = new TreeMap<>();
    exchange
        .getRequestHeaders()
        .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    received.add(
        new Received(
            exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers, body));
    responder.respond(exchange, release);
  }

  void respond(Responder responder) {
    this.responder = responder;
  }

  int port() {
    return server.getAddress().getPort();
  }

  URI uri(String host, String path) {
    return URI.create("http://" + host + ":" + port() + path);
  }

  List<Received> received() {
    return List.copyOf(received);
  }

  CountDownLatch release() {
    return release;
  }

  @Override
  public void close() {
    release.countDown();
    server.stop(0);
    threads.shutdownNow();
  }
}
