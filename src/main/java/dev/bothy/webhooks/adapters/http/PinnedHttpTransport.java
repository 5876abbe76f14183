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
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.nio.AsyncClientConnectionManager;
import org.apache.hc.client5.http.nio.AsyncConnectionEndpoint;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.net.InetAddressUtils;
import org.apache.hc.core5.reactor.ConnectionInitiator;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The {@link WebhookTransport} over Apache HttpClient 5's asynchronous client, safe against
 * server-side request forgery and DNS rebinding (ADR 0031).
 *
 * <p>How an attempt goes: {@link TargetGuard#resolveChecked(URI)} checks the URL's form and
 * resolves the host once (on the caller's lookup executor; an address needs no lookup); if any
 * answer lies in a refused range the attempt ends with {@code refused_address} before any
 * connection. Otherwise the request's route carries the first checked address, so HttpClient
 * connects to that address without looking the name up again; the connection manager's {@link
 * DnsResolver} refuses every lookup, so a code path that tried one would fail rather than reach an
 * unchecked address. TLS verifies the certificate against the host name (sent as SNI), not the
 * address, and speaks HTTP/1.1 only. No redirect is followed, no cookie kept, no authentication
 * cached, no proxy taken from the environment, no request retried, no response decompressed. The
 * response body is kept up to {@code maxResponseBodyChars} characters and the connection dropped
 * after that; a timer cancels the request when its timeout passes, so a slow receiver cannot hold a
 * delivery longer than {@code webhooks.requestTimeout}. When the target's connections (or all of
 * them) are busy, a send waits for one up to the connection wait and then completes with {@link
 * ReceiverBusy} without sending (D-WF-9). No thread waits for an answer: the client's I/O threads
 * (one per core) read every connection and complete the futures.
 *
 * <p>It logs nothing: the delivery job records the attempt. Close it to release its connections and
 * its threads.
 */
public final class PinnedHttpTransport implements WebhookTransport, AutoCloseable {
  /** The {@code User-Agent} of every webhook request. */
  public static final String USER_AGENT = "Bothy-Webhooks";

  /** The response headers a {@link SendResult} keeps. */
  static final List<String> KEPT_HEADERS = List.of("retry-after", "content-type", "location");

  // The context attribute that carries an attempt's checked target to the route planner.
  private static final String CHECKED_TARGET = "bothy.webhooks.checked-target";

  // The context attribute set once an attempt has its connection (or starts opening one).
  private static final String CONNECTION = "bothy.webhooks.connection";

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
  private final CloseableHttpAsyncClient client;
  private final ScheduledThreadPoolExecutor deadlines;
  private final Duration connectionWait;
  private final Duration closeWait;

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
    this.closeWait = settings.connectTimeout();
    this.client =
        HttpAsyncClients.custom()
            .setConnectionManager(
                new LeaseMarking(
                    PoolingAsyncClientConnectionManagerBuilder.create()
                        .setDnsResolver(NO_LOOKUP)
                        .setTlsStrategy(new DefaultClientTlsStrategy(settings.tlsContext()))
                        .setDefaultTlsConfig(
                            TlsConfig.custom()
                                .setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1)
                                .build())
                        .setMaxConnTotal(settings.maxConnections())
                        .setMaxConnPerRoute(settings.maxConnectionsPerTarget())
                        .setDefaultConnectionConfig(
                            ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.of(settings.connectTimeout()))
                                .build())
                        .build()))
            // Not useSystemProperties(): no proxy, trust store or credentials from the
            // environment. The route is the checked address, never a proxy.
            .setRoutePlanner(PinnedHttpTransport::route)
            // Marks an attempt that has its connection, a kept-alive one included: only one
            // without one is a busy receiver.
            .addExecInterceptorAfter(
                ChainElement.CONNECT.name(),
                "bothy-connected",
                (request, entity, scope, chain, callback) -> {
                  if (scope.clientContext.getAttribute(CONNECTION) instanceof Connection c
                      && !c.connected()) {
                    // The connection wait ended first and the attempt is a busy receiver: the
                    // request must not go out.
                    callback.failed(new ConnectionRequestTimeoutException("connection wait over"));
                    return;
                  }
                  chain.proceed(request, entity, scope, callback);
                })
            .disableRedirectHandling()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableAutomaticRetries()
            .setUserAgent(USER_AGENT)
            .build();
    client.start();
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

  /** The route of a request: straight to the address its attempt checked, never a proxy. */
  private static HttpRoute route(HttpHost target, HttpContext context) {
    Object checked = context.getAttribute(CHECKED_TARGET);
    HttpHost host = checked instanceof HttpHost pinned ? pinned : target;
    return new HttpRoute(host, null, "https".equalsIgnoreCase(host.getSchemeName()));
  }

  /**
   * Sends on the calling thread and waits for the answer: {@link #sendAsync} with the calling
   * thread for the lookup.
   */
  @Override
  public SendResult send(OutgoingRequest request) {
    try {
      return sendAsync(request, Runnable::run).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /**
   * Starts one request without a waiting thread: the lookup of a host name on {@code lookups} (an
   * address needs none), then the exchange on the client's I/O threads.
   *
   * @param request the signed request
   * @param lookups runs the host's lookup
   * @return completes on an I/O thread (or the deadline timer) with the response or the kind of
   *     error; exceptionally with {@link ReceiverBusy} when no connection came within the
   *     connection wait and nothing was sent. Cancelling it drops the request.
   */
  @Override
  public CompletableFuture<SendResult> sendAsync(OutgoingRequest request, Executor lookups) {
    long start = System.nanoTime();
    String host = request.target().getHost();
    // An address needs no lookup: no hand-off to another thread for it.
    boolean literal =
        host != null
            && (InetAddressUtils.isIPv4(host)
                || (host.startsWith("[")
                    && InetAddressUtils.isIPv6(host.substring(1, host.length() - 1))));
    // The caller's future is the exchange's own, so cancelling it drops the request.
    CompletableFuture<SendResult> out = new CompletableFuture<>();
    CompletableFuture.supplyAsync(() -> checked(request), literal ? Runnable::run : lookups)
        .whenComplete(
            (checked, thrown) -> {
              if (thrown != null) {
                out.completeExceptionally(thrown);
              } else if (checked.refusal() != null) {
                out.complete(SendResult.error(checked.refusal(), since(start)));
              } else if (!out.isDone()) {
                exchange(request, checked.addresses(), start, out);
              }
            });
    return out;
  }

  /** The checked addresses of a target, or the error kind of its refusal. */
  private record Checked(List<InetAddress> addresses, String refusal) {}

  private Checked checked(OutgoingRequest request) {
    try {
      return new Checked(guard.resolveChecked(request.target()), null);
    } catch (WebhookTargetRefused refused) {
      return new Checked(
          List.of(),
          refused.reason() == WebhookTargetRefused.Reason.UNRESOLVED
              ? SendResult.DNS
              : SendResult.REFUSED_ADDRESS);
    }
  }

  /** Sends the request to the checked address and completes {@code out} with its end. */
  private void exchange(
      OutgoingRequest request,
      List<InetAddress> addresses,
      long start,
      CompletableFuture<SendResult> out) {
    URI target = request.target();
    String scheme = target.getScheme().toLowerCase(Locale.ROOT);
    int port = target.getPort() >= 0 ? target.getPort() : scheme.equals("https") ? 443 : 80;
    HttpHost pinned = new HttpHost(scheme, addresses.get(0), target.getHost(), port);
    // A request line carries ASCII only: a character beyond it goes out percent-encoded as UTF-8.
    URI ascii = URI.create(target.toASCIIString());
    String path =
        ascii.getRawPath() == null || ascii.getRawPath().isEmpty() ? "/" : ascii.getRawPath();
    String query = ascii.getRawQuery() == null ? "" : "?" + ascii.getRawQuery();
    String contentType = request.headers().getOrDefault("content-type", "application/json");
    SimpleRequestBuilder post =
        SimpleRequestBuilder.post()
            .setHttpHost(pinned)
            .setPath(path + query)
            .setBody(request.body(), ContentType.parseLenient(contentType));
    request.headers().forEach(post::setHeader);
    // The lookup counts against the request's timeout: what it used is not given again.
    Duration left = request.timeout().minus(since(start));
    if (left.isNegative() || left.isZero()) {
      out.complete(SendResult.error(SendResult.TIMEOUT, since(start)));
      return;
    }
    // A wait for the pool counts against the request's timeout too, but a wait cut short by the
    // connection wait sent nothing: that is a busy receiver, not an attempt (D-WF-9).
    boolean waitShorter = connectionWait.compareTo(left) < 0;
    Duration poolWait = waitShorter ? connectionWait : left;
    HttpClientContext context = HttpClientContext.create();
    context.setAttribute(CHECKED_TARGET, pinned);
    context.setRequestConfig(
        RequestConfig.custom()
            .setResponseTimeout(Timeout.of(left))
            .setConnectionRequestTimeout(Timeout.of(poolWait))
            .build());

    AtomicBoolean timedOut = new AtomicBoolean();
    AtomicReference<Future<?>> running = new AtomicReference<>();
    // An excerpt complete before the body ends: the answer is known, the rest is not read.
    Runnable dropRest =
        () -> {
          Future<?> f = running.get();
          if (f != null) {
            f.cancel(true);
          }
        };
    Connection connection = new Connection();
    context.setAttribute(CONNECTION, connection);
    Future<?> exchange =
        client.execute(
            SimpleRequestProducer.create(post.build()),
            new ExcerptConsumer(maxResponseBodyChars, start, out, dropRest),
            null,
            context,
            new FutureCallback<SendResult>() {
              @Override
              public void completed(SendResult result) {
                out.complete(result);
              }

              @Override
              public void failed(Exception e) {
                if (waitShorter && !timedOut.get() && poolWaitEnded(e) && connection.busy()) {
                  out.completeExceptionally(new ReceiverBusy(connectionWait));
                  return;
                }
                out.complete(
                    SendResult.error(
                        timedOut.get() ? SendResult.TIMEOUT : kindOf(e), since(start)));
              }

              @Override
              public void cancelled() {
                // The deadline (or an excerpt already complete, which answered first).
                out.complete(SendResult.error(SendResult.TIMEOUT, since(start)));
              }
            });
    running.set(exchange);
    if (out.isDone()) {
      exchange.cancel(true);
    }
    ScheduledFuture<?> deadline =
        deadlines.schedule(
            () -> {
              timedOut.set(true);
              exchange.cancel(true);
            },
            left.toNanos(),
            TimeUnit.NANOSECONDS);
    // The pool checks a lease's deadline only when a connection comes back, so the connection
    // wait is kept here: a request still without one then sent nothing (D-WF-9).
    ScheduledFuture<?> connectionDeadline =
        waitShorter
            ? deadlines.schedule(
                () -> {
                  if (connection.busy()
                      && out.completeExceptionally(new ReceiverBusy(connectionWait))) {
                    exchange.cancel(true);
                  }
                },
                poolWait.toNanos(),
                TimeUnit.NANOSECONDS)
            : null;
    out.whenComplete(
        (result, e) -> {
          if (out.isCancelled()) {
            // The caller gave up on the attempt: its connection goes back at once.
            exchange.cancel(true);
          }
          deadline.cancel(false);
          if (connectionDeadline != null) {
            connectionDeadline.cancel(false);
          }
        });
  }

  /**
   * Whether the failure is the end of the wait for a pooled connection: HttpClient throws {@link
   * ConnectionRequestTimeoutException} when its own wait runs out, and a {@code
   * RequestFailedException} caused by the pool's {@link TimeoutException} when a connection came
   * free only after the lease's deadline. No other stage of a request throws either.
   */
  private static boolean poolWaitEnded(Exception e) {
    if (e instanceof ConnectionRequestTimeoutException || e instanceof TimeoutException) {
      return true;
    }
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether an attempt got its connection before its connection wait ended: whichever comes first
   * decides, once, so an attempt is never both sent and reported as a busy receiver.
   */
  private static final class Connection {
    private static final int WAITING = 0;
    private static final int CONNECTED = 1;
    private static final int BUSY = 2;
    private final AtomicInteger state = new AtomicInteger(WAITING);

    /** Marks the connection come; false when the wait had ended first. */
    boolean connected() {
      return state.compareAndSet(WAITING, CONNECTED) || state.get() == CONNECTED;
    }

    /** Marks the wait over without a connection; false when the connection had come first. */
    boolean busy() {
      return state.compareAndSet(WAITING, BUSY) || state.get() == BUSY;
    }
  }

  /**
   * The connection pool, marking the attempts whose new connection starts: the connect and the TLS
   * handshake that follow a lease count against the connect timeout, not the connection wait.
   */
  private static final class LeaseMarking implements AsyncClientConnectionManager {
    private final AsyncClientConnectionManager pool;

    LeaseMarking(AsyncClientConnectionManager pool) {
      this.pool = pool;
    }

    @Override
    public Future<AsyncConnectionEndpoint> lease(
        String id,
        HttpRoute route,
        Object state,
        Timeout requestTimeout,
        FutureCallback<AsyncConnectionEndpoint> callback) {
      return pool.lease(id, route, state, requestTimeout, callback);
    }

    @Override
    public void release(AsyncConnectionEndpoint endpoint, Object newState, TimeValue validFor) {
      pool.release(endpoint, newState, validFor);
    }

    @Override
    public Future<AsyncConnectionEndpoint> connect(
        AsyncConnectionEndpoint endpoint,
        ConnectionInitiator initiator,
        Timeout connectTimeout,
        Object attachment,
        HttpContext context,
        FutureCallback<AsyncConnectionEndpoint> callback) {
      if (context != null && context.getAttribute(CONNECTION) instanceof Connection c) {
        // Once opening has begun the attempt is no busy receiver; if the wait ended first, the
        // request is refused after the connect (the interceptor) and the connection pooled.
        c.connected();
      }
      return pool.connect(endpoint, initiator, connectTimeout, attachment, context, callback);
    }

    @Override
    public void upgrade(AsyncConnectionEndpoint endpoint, Object attachment, HttpContext context) {
      pool.upgrade(endpoint, attachment, context);
    }

    @Override
    public void upgrade(
        AsyncConnectionEndpoint endpoint,
        Object attachment,
        HttpContext context,
        FutureCallback<AsyncConnectionEndpoint> callback) {
      pool.upgrade(endpoint, attachment, context, callback);
    }

    @Override
    public void close(CloseMode mode) {
      pool.close(mode);
    }

    @Override
    public void close() throws IOException {
      pool.close();
    }
  }

  /**
   * Reads an answer: the status, the kept headers and the body's start, up to {@code maxChars}
   * characters. Once the excerpt is full before the body ends, it answers at once and drops the
   * connection, so a long body is never read. Runs on the client's I/O threads.
   */
  private static final class ExcerptConsumer implements AsyncResponseConsumer<SendResult> {
    // Four bytes of UTF-8 hold any character: this many bytes always make the excerpt.
    private static final int BYTES_PER_CHAR = 4;
    private static final int READ_CHUNK = 64 * 1024;

    private final int maxChars;
    private final int maxBytes;
    private final long start;
    private final CompletableFuture<SendResult> out;
    private final Runnable dropRest;
    private HttpResponse head;
    private FutureCallback<SendResult> done;
    private byte[] kept = new byte[0];
    private int size;
    private int chars;
    private boolean answered;

    ExcerptConsumer(
        int maxChars, long start, CompletableFuture<SendResult> out, Runnable dropRest) {
      this.maxChars = maxChars;
      this.maxBytes = (int) Math.min((long) maxChars * BYTES_PER_CHAR, Integer.MAX_VALUE - 8);
      this.start = start;
      this.out = out;
      this.dropRest = dropRest;
    }

    @Override
    public void consumeResponse(
        HttpResponse response,
        EntityDetails entity,
        HttpContext context,
        FutureCallback<SendResult> done) {
      head = response;
      if (entity == null) {
        answered = true;
        done.completed(result());
        return;
      }
      this.done = done;
      if (maxBytes == 0) {
        answerEarly();
      }
    }

    @Override
    public void informationResponse(HttpResponse response, HttpContext context) {
      // A 1xx answer is not the answer.
    }

    @Override
    public void updateCapacity(CapacityChannel channel) throws IOException {
      channel.update(READ_CHUNK);
    }

    @Override
    public void consume(ByteBuffer src) {
      while (!answered && src.hasRemaining()) {
        byte b = src.get();
        // A byte that starts a character after the last one kept: the body is longer than the
        // excerpt. A run of bytes that never starts one is cut at the byte cap.
        boolean starts = (b & 0xC0) != 0x80;
        if ((starts && chars == maxChars) || size == maxBytes) {
          answerEarly();
          break;
        }
        if (size == kept.length) {
          kept = Arrays.copyOf(kept, Math.min(maxBytes, Math.max(64, kept.length * 2)));
        }
        kept[size++] = b;
        if (starts) {
          chars++;
        }
      }
      src.position(src.limit());
    }

    @Override
    public void streamEnd(List<? extends Header> trailers) {
      if (!answered) {
        answered = true;
        done.completed(result());
      }
    }

    private void answerEarly() {
      answered = true;
      out.complete(result());
      dropRest.run();
    }

    private SendResult result() {
      // Malformed input becomes U+FFFD: an excerpt is for the operator's eyes, not for parsing.
      String text = new String(kept, 0, size, StandardCharsets.UTF_8);
      if (text.length() > maxChars) {
        text = text.substring(0, maxChars);
      }
      Map<String, String> headers = new TreeMap<>();
      for (String name : KEPT_HEADERS) {
        Header header = head.getFirstHeader(name);
        if (header != null) {
          headers.put(name, header.getValue());
        }
      }
      return SendResult.response(head.getCode(), headers, text, since(start));
    }

    @Override
    public void failed(Exception cause) {
      // The exchange's callback hears of it.
    }

    @Override
    public void releaseResources() {
      kept = new byte[0];
    }
  }

  private static String kindOf(Exception e) {
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

  /**
   * Closes every connection and stops the client's threads and the timer thread. The I/O threads
   * end first, at most the connect timeout ({@code webhooks.requestTimeout}, the stop step's
   * budget): closing the client at once while they still ran made HttpCore log a {@code
   * ClosedSelectorException} as an error at every stop.
   */
  @Override
  public void close() {
    deadlines.shutdownNow();
    client.initiateShutdown();
    try {
      client.awaitShutdown(TimeValue.of(closeWait));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    client.close(CloseMode.IMMEDIATE);
  }
}
