package dev.bothy.webhooks.adapters.http;

import dev.bothy.webhooks.app.HostResolver;
import dev.bothy.webhooks.app.OutgoingRequest;
import dev.bothy.webhooks.app.ReceiverBusy;
import dev.bothy.webhooks.app.SendResult;
import dev.bothy.webhooks.app.TargetGuard;
import dev.bothy.webhooks.app.WebhookTransport;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.WebhookTargetRefused;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.Reader;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultSchemePortResolver;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.routing.DefaultRoutePlanner;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;

/**
 * The {@link WebhookTransport} over Apache HttpClient 5, safe against server-side request forgery
 * and DNS rebinding.
 *
 * <p>How an attempt goes: {@link TargetGuard#resolveChecked(URI)} checks the URL's form and
 * resolves the host once; if any answer lies in a refused range the attempt ends with {@code
 * refused_address} before any connection. Otherwise the request goes to an {@link HttpHost} that
 * carries the first checked address, so HttpClient connects to that address without looking the
 * name up again; the connection manager's {@link DnsResolver} refuses every lookup, so a code path
 * that tried one would fail rather than reach an unchecked address. TLS verifies the certificate
 * against the host name (sent as SNI), not the address. No redirect is followed, no cookie kept, no
 * authentication cached, no proxy taken from the environment, no request retried, no response
 * decompressed. The response body is read up to {@code maxResponseBodyChars} characters and the
 * connection dropped after that; a timer cancels the request when its timeout passes, so a slow
 * receiver cannot hold a worker longer than {@code webhooks.requestTimeout}. When the target's
 * connections (or all of them) are busy, a send waits for one up to the connection wait and then
 * throws {@link ReceiverBusy} without sending (D-WF-9).
 *
 * <p>It logs nothing: the delivery job records the attempt. Close it to release its connections and
 * its timer thread.
 */
public final class PinnedHttpTransport implements WebhookTransport, AutoCloseable {
  /** The {@code User-Agent} of every webhook request. */
  public static final String USER_AGENT = "Bothy-Webhooks";

  /** The response headers a {@link SendResult} keeps. */
  static final List<String> KEPT_HEADERS = List.of("retry-after", "content-type", "location");

  /** Refuses every lookup: the address comes with the target, checked. */
  private static final DnsResolver NO_LOOKUP =
      new DnsResolver() {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
          throw new UnknownHostException("the webhook transport never looks a host up twice");
        }

        @Override
        public String resolveCanonicalHostname(String host) throws UnknownHostException {
          throw new UnknownHostException("the webhook transport never looks a host up twice");
        }
      };

  private final TargetGuard guard;
  private final int maxResponseBodyChars;
  private final PoolingHttpClientConnectionManager connections;
  private final CloseableHttpClient client;
  private final ScheduledThreadPoolExecutor deadlines;
  private final Duration connectionWait;

  /**
   * Builds a transport.
   *
   * @param policy the network rules ({@code webhooks.allowedNetworks}, {@code
   *     webhooks.allowPlainHttp})
   * @param resolver the one lookup per attempt, {@link HostResolver#system()} in production
   * @param maxResponseBodyChars how many characters of a response body to keep ({@code
   *     webhooks.maxResponseBodyChars}); zero or more
   * @param settings the connection pool and TLS
   */
  public PinnedHttpTransport(
      NetworkPolicy policy,
      HostResolver resolver,
      int maxResponseBodyChars,
      ConnectionSettings settings) {
    if (maxResponseBodyChars < 0) {
      throw new IllegalArgumentException("maxResponseBodyChars must be zero or more");
    }
    Objects.requireNonNull(settings, "settings");
    this.guard = new TargetGuard(policy, resolver);
    this.maxResponseBodyChars = maxResponseBodyChars;
    this.connectionWait = settings.connectionWait();
    this.connections =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setDnsResolver(NO_LOOKUP)
            .setTlsSocketStrategy(new DefaultClientTlsStrategy(settings.tlsContext()))
            .setMaxConnTotal(settings.maxConnections())
            .setMaxConnPerRoute(settings.maxConnectionsPerTarget())
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.of(settings.connectTimeout()))
                    .build())
            .build();
    this.client =
        HttpClients.custom()
            .setConnectionManager(connections)
            // Not useSystemProperties(): no proxy, trust store or credentials from the
            // environment; a plain route planner has no proxy at all.
            .setRoutePlanner(new DefaultRoutePlanner(DefaultSchemePortResolver.INSTANCE))
            .disableRedirectHandling()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableAutomaticRetries()
            .disableContentCompression()
            .setUserAgent(USER_AGENT)
            .build();
    this.deadlines =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "bothy-webhooks-deadline");
              t.setDaemon(true);
              return t;
            });
    deadlines.setRemoveOnCancelPolicy(true);
  }

  /**
   * Returns the guard this transport checks targets with, for the API's check at creation.
   *
   * @return the guard
   */
  public TargetGuard guard() {
    return guard;
  }

  @Override
  public SendResult send(OutgoingRequest request) {
    long start = System.nanoTime();
    List<InetAddress> addresses;
    try {
      addresses = guard.resolveChecked(request.target());
    } catch (WebhookTargetRefused refused) {
      String kind =
          refused.reason() == WebhookTargetRefused.Reason.UNRESOLVED
              ? SendResult.DNS
              : SendResult.REFUSED_ADDRESS;
      return SendResult.error(kind, since(start));
    }
    URI target = request.target();
    String scheme = target.getScheme().toLowerCase(Locale.ROOT);
    int port = target.getPort() >= 0 ? target.getPort() : scheme.equals("https") ? 443 : 80;
    HttpHost pinned = new HttpHost(scheme, addresses.get(0), target.getHost(), port);

    // A request line carries ASCII only: a character beyond it goes out percent-encoded as UTF-8.
    HttpPost post = new HttpPost(URI.create(target.toASCIIString()));
    request.headers().forEach(post::setHeader);
    String contentType = request.headers().getOrDefault("content-type", "application/json");
    post.setEntity(new ByteArrayEntity(request.body(), ContentType.parseLenient(contentType)));
    // The lookup counts against the request's timeout: what it used is not given again.
    Duration left = request.timeout().minus(since(start));
    if (left.isNegative() || left.isZero()) {
      return SendResult.error(SendResult.TIMEOUT, since(start));
    }
    // A wait for the pool counts against the request's timeout too, but a wait cut short by the
    // connection wait sent nothing: that is a busy receiver, not an attempt (D-WF-9).
    boolean waitShorter = connectionWait.compareTo(left) < 0;
    Duration poolWait = waitShorter ? connectionWait : left;
    HttpClientContext context = HttpClientContext.create();
    context.setRequestConfig(
        RequestConfig.custom()
            .setResponseTimeout(Timeout.of(left))
            .setConnectionRequestTimeout(Timeout.of(poolWait))
            .build());

    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> deadline =
        deadlines.schedule(
            () -> {
              timedOut.set(true);
              post.cancel();
            },
            left.toNanos(),
            TimeUnit.NANOSECONDS);
    SendResult[] read = new SendResult[1];
    try {
      return client.execute(
          pinned,
          post,
          context,
          response -> {
            Excerpt excerpt = excerpt(response.getEntity());
            read[0] =
                SendResult.response(
                    response.getCode(), kept(response), excerpt.text(), since(start));
            if (!excerpt.complete()) {
              // The rest of the body stays unread: HttpClient would drain it after this handler,
              // so the connection is dropped first. execute then throws, and read[0] answers.
              post.cancel();
            }
            return read[0];
          });
    } catch (CancellationException e) {
      // The deadline cancelled the request while it still waited for its connection.
      return SendResult.error(SendResult.TIMEOUT, since(start));
    } catch (IOException e) {
      if (read[0] != null) {
        return read[0];
      }
      if (waitShorter && !timedOut.get() && poolWaitEnded(e)) {
        throw new ReceiverBusy(connectionWait);
      }
      return SendResult.error(timedOut.get() ? SendResult.TIMEOUT : kindOf(e), since(start));
    } finally {
      deadline.cancel(false);
    }
  }

  /**
   * Whether the failure is the end of the wait for a pooled connection: HttpClient throws {@link
   * ConnectionRequestTimeoutException} when its own wait runs out, and a {@code
   * RequestFailedException} caused by the pool's {@link TimeoutException} when a connection came
   * free only after the lease's deadline. No other stage of a request throws either.
   */
  private static boolean poolWaitEnded(IOException e) {
    if (e instanceof ConnectionRequestTimeoutException) {
      return true;
    }
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, String> kept(ClassicHttpResponse response) {
    Map<String, String> headers = new TreeMap<>();
    for (String name : KEPT_HEADERS) {
      Header header = response.getFirstHeader(name);
      if (header != null) {
        headers.put(name, header.getValue());
      }
    }
    return headers;
  }

  /** The start of a body, and whether it is the whole body. */
  private record Excerpt(String text, boolean complete) {}

  private Excerpt excerpt(HttpEntity entity) throws IOException {
    if (entity == null) {
      return new Excerpt("", true);
    }
    if (maxResponseBodyChars == 0) {
      return new Excerpt("", false);
    }
    StringBuilder out = new StringBuilder();
    InputStream in = entity.getContent();
    // Malformed input becomes U+FFFD: an excerpt is for the operator's eyes, not for parsing.
    Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8);
    char[] buffer = new char[Math.min(maxResponseBodyChars, 4096)];
    while (out.length() < maxResponseBodyChars) {
      int n = reader.read(buffer, 0, Math.min(buffer.length, maxResponseBodyChars - out.length()));
      if (n < 0) {
        // At the end, closing releases the connection to the pool for the next delivery.
        reader.close();
        return new Excerpt(out.toString(), true);
      }
      out.append(buffer, 0, n);
    }
    // Not closed here: closing the stream would read the rest of the body, however long.
    return new Excerpt(out.toString(), false);
  }

  private static String kindOf(IOException e) {
    if (e instanceof ConnectTimeoutException || e instanceof java.net.SocketTimeoutException) {
      return SendResult.TIMEOUT;
    }
    if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
      return SendResult.CONNECT;
    }
    if (e instanceof SSLException) {
      return SendResult.TLS;
    }
    if (e instanceof UnknownHostException) {
      return SendResult.DNS;
    }
    if (e instanceof InterruptedIOException) {
      return SendResult.TIMEOUT;
    }
    return SendResult.IO;
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /** Closes every connection at once and stops the timer thread. */
  @Override
  public void close() {
    deadlines.shutdownNow();
    client.close(CloseMode.IMMEDIATE);
  }
}
