package dev.bothy.webhooks.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.bothy.webhooks.app.OutgoingRequest;
import dev.bothy.webhooks.app.SendResult;
import dev.bothy.webhooks.domain.Cidr;
import dev.bothy.webhooks.domain.NetworkPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS with the pinned address: the connection goes to 127.0.0.1, and the certificate is still
 * checked against the URL's host name. The receiver's certificate, made by the JDK's keytool for
 * {@code receiver.example.com} only, is the one certificate the transport trusts.
 */
class PinnedHttpTransportTlsTest {
  private static final char[] PASSWORD = "changeit".toCharArray();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final NetworkPolicy HTTPS_ONLY =
      new NetworkPolicy(List.of(Cidr.parse("127.0.0.0/8")), false);

  @TempDir static Path dir;
  private static HttpsServer server;
  private static SSLContext trust;

  @BeforeAll
  static void start() throws Exception {
    Path keystore = dir.resolve("receiver.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process process =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                "receiver",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=receiver.example.com",
                "-ext",
                "SAN=dns:receiver.example.com",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                new String(PASSWORD))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("keytool.log").toFile())
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(Files.readString(dir.resolve("keytool.log"))).isZero();

    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      store.load(in, PASSWORD);
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, PASSWORD);
    SSLContext serverContext = SSLContext.getInstance("TLS");
    serverContext.init(keys.getKeyManagers(), null, null);
    TrustManagerFactory trusted =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trusted.init(store);
    trust = SSLContext.getInstance("TLS");
    trust.init(null, trusted.getTrustManagers(), null);

    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.setHttpsConfigurator(new HttpsConfigurator(serverContext));
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  private static SendResult send(String host) {
    try (PinnedHttpTransport transport =
        new PinnedHttpTransport(
            HTTPS_ONLY,
            ScriptedResolver.answering("127.0.0.1"),
            100,
            new ConnectionSettings(
                10, 2, TIMEOUT, ConnectionSettings.DEFAULT_CONNECTION_WAIT, trust))) {
      URI target = URI.create("https://" + host + ":" + server.getAddress().getPort() + "/hook");
      return transport.send(new OutgoingRequest(target, Map.of(), new byte[] {'{', '}'}, TIMEOUT));
    }
  }

  @Test
  void the_certificate_of_the_host_name_is_accepted_on_the_pinned_address() {
    SendResult result = send("receiver.example.com");
    assertThat(result.errorKind()).isEmpty();
    assertThat(result.status()).isEqualTo(204);
  }

  @Test
  void a_handshake_slower_than_the_connection_wait_is_not_a_busy_receiver() throws Exception {
    // A relay that takes each connection at once but starts relaying only after 600 ms: the TLS
    // handshake waits, the way it does for a receiver far away.
    try (ServerSocket relay = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"))) {
      Thread relaying =
          new Thread(
              () -> {
                try (Socket in = relay.accept()) {
                  Thread.sleep(600);
                  try (Socket out = new Socket("127.0.0.1", server.getAddress().getPort())) {
                    Thread back = new Thread(() -> pipe(out, in));
                    back.start();
                    pipe(in, out);
                    back.join(30_000);
                  }
                } catch (IOException | InterruptedException e) {
                  // The test's assertion tells what went wrong.
                }
              });
      relaying.start();
      try (PinnedHttpTransport transport =
          new PinnedHttpTransport(
              HTTPS_ONLY,
              ScriptedResolver.answering("127.0.0.1"),
              100,
              new ConnectionSettings(10, 2, TIMEOUT, Duration.ofMillis(200), trust))) {
        URI target = URI.create("https://receiver.example.com:" + relay.getLocalPort() + "/hook");
        SendResult result =
            transport.send(new OutgoingRequest(target, Map.of(), new byte[] {'{', '}'}, TIMEOUT));
        assertThat(result.errorKind()).as("%s", result).isEmpty();
        assertThat(result.status()).isEqualTo(204);
      }
      relaying.join(30_000);
    }
  }

  private static void pipe(Socket from, Socket to) {
    try {
      from.getInputStream().transferTo(to.getOutputStream());
      to.shutdownOutput();
    } catch (IOException e) {
      // The other side closed: the exchange is over.
    }
  }

  @Test
  void a_certificate_for_another_name_is_refused_although_the_address_matches() {
    SendResult result = send("other.example.com");
    assertThat(result.errorKind()).contains(SendResult.TLS);
  }
}
