package dev.bothy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookSignature;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/webhooks.md tells receivers how to verify a signature in Java and with openssl: the page's
 * Java class, compiled as it stands, and its openssl line, run in a shell, must accept what Bothy's
 * signer makes.
 */
class WebhooksDocTest {
  private static final Path PAGE =
      Path.of(System.getProperty("bothy.test.projectDir", ".")).resolve("docs/webhooks.md");
  private static final Pattern ONE_LINER =
      Pattern.compile(
          "<!-- verify-openssl:start -->\\s*```sh\\n(.*?)\\n```\\s*<!-- verify-openssl:end -->",
          Pattern.DOTALL);

  private static final Pattern JAVA_EXAMPLE =
      Pattern.compile("### In Java.*?```java\\n(.*?)\\n```", Pattern.DOTALL);

  @TempDir Path dir;

  private static String oneLiner() throws IOException {
    Matcher m = ONE_LINER.matcher(Files.readString(PAGE));
    assertThat(m.find()).as("the openssl block of docs/webhooks.md").isTrue();
    String line = m.group(1);
    assertThat(line).doesNotContain("\n");
    return line;
  }

  private String run(String line, WebhookSecret secret, String id, long ts, byte[] body)
      throws Exception {
    Files.write(dir.resolve("body.json"), body);
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", line)
            .directory(dir.toFile())
            .redirectError(dir.resolve("stderr.txt").toFile());
    Map<String, String> env = builder.environment();
    env.put("WEBHOOK_ID", id);
    env.put("WEBHOOK_TIMESTAMP", Long.toString(ts));
    env.put("WEBHOOK_SECRET", secret.encoded());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(Files.readString(dir.resolve("stderr.txt"))).isZero();
    return out.trim();
  }

  private static boolean opensslPresent() {
    try {
      Process p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  @Test
  void the_openssl_one_liner_reproduces_the_specification_test_vector() throws Exception {
    Assumptions.assumeTrue(opensslPresent(), "openssl is not installed");
    WebhookSecret secret = WebhookSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    byte[] body = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    String printed = run(oneLiner(), secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330L, body);
    assertThat("v1," + printed).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }

  @Test
  void the_openssl_one_liner_matches_the_signer_on_a_body_with_a_trailing_newline()
      throws Exception {
    Assumptions.assumeTrue(opensslPresent(), "openssl is not installed");
    WebhookSecret secret = WebhookSecret.generate();
    byte[] body =
        "{\"name\":\"Robin\",\"city\":\"Z\u00fcrich\"}\n\n".getBytes(StandardCharsets.UTF_8);
    String printed = run(oneLiner(), secret, "msg_2", 1767225600L, body);
    assertThat("v1," + printed)
        .isEqualTo(WebhookSignature.sign("msg_2", 1767225600L, body, List.of(secret)));
  }

  @Test
  void the_java_example_compiles_and_accepts_what_the_signer_sends_and_nothing_else()
      throws Exception {
    Matcher m = JAVA_EXAMPLE.matcher(Files.readString(PAGE));
    assertThat(m.find()).as("the Java block of docs/webhooks.md").isTrue();
    Path source = dir.resolve("WebhookVerifier.java");
    Files.writeString(source, m.group(1));
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
    int status =
        compiler.run(
            null, errors, errors, "-d", dir.toString(), "-Xlint:all", "-Werror", source.toString());
    assertThat(status).as(errors.toString(StandardCharsets.UTF_8)).isZero();

    WebhookSecret secret = WebhookSecret.generate();
    WebhookSecret old = WebhookSecret.generate();
    long now = System.currentTimeMillis() / 1000;
    byte[] body = "{\"name\":\"Sam\"}".getBytes(StandardCharsets.UTF_8);
    String rotated = WebhookSignature.sign("msg_3", now, body, List.of(secret, old));
    try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      Class<?> type = loader.loadClass("WebhookVerifier");
      Constructor<?> constructor = type.getDeclaredConstructor(String.class);
      constructor.setAccessible(true);
      Method verify =
          type.getDeclaredMethod("verify", String.class, String.class, String.class, byte[].class);
      verify.setAccessible(true);
      Object receiver = constructor.newInstance(old.encoded());
      String ts = Long.toString(now);
      assertThat(verify.invoke(receiver, "msg_3", ts, rotated, body)).isEqualTo(true);
      assertThat(verify.invoke(receiver, "msg_4", ts, rotated, body)).isEqualTo(false);
      byte[] changed = "{\"name\":\"Alex\"}".getBytes(StandardCharsets.UTF_8);
      assertThat(verify.invoke(receiver, "msg_3", ts, rotated, changed)).isEqualTo(false);
      String stale = Long.toString(now - 3600);
      String signedStale = WebhookSignature.sign("msg_3", now - 3600, body, List.of(old));
      assertThat(verify.invoke(receiver, "msg_3", stale, signedStale, body)).isEqualTo(false);
      Object stranger = constructor.newInstance(WebhookSecret.generate().encoded());
      assertThat(verify.invoke(stranger, "msg_3", ts, rotated, body)).isEqualTo(false);
    }
  }

  @Test
  void the_page_gives_the_specification_test_vector() throws IOException {
    assertThat(Files.readString(PAGE))
        .contains("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        .contains("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }
}
