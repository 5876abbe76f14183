package dev.bothy.wire;

import ch.qos.logback.access.jetty.RequestLogImpl;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * The request log sees every request without its query string and without its {@code Authorization}
 * header, so no format an operator writes ({@code %r}, {@code %q}, {@code %requestURL}, {@code
 * %reqParameter{token}}, {@code %i{Authorization}}) can put a token into the log. Bothy takes
 * tokens only in the header and no secret in a query, but a client may still send one there ({@code
 * ?access_token=...}); logging the path only is simpler and safer than a list of parameter names to
 * redact, which would miss the next name.
 *
 * <p>Installed by {@link #install()}, a Jetty listener that wraps the server's request log just
 * before the server starts; the wrapper owns the original log's lifecycle. It also makes
 * logback-access quiet: at its start it checks the versions of its jars by their manifests, which
 * the shaded jar replaces with Bothy's, and prints two warnings about a difference that does not
 * exist (the build pins both artifacts through Dropwizard's BOM).
 */
final class PathOnlyRequestLog extends ContainerLifeCycle implements RequestLog {
  private final RequestLog delegate;

  private PathOnlyRequestLog(RequestLog delegate) {
    this.delegate = delegate;
    addBean(delegate);
  }

  /**
   * A listener for Dropwizard's Jetty lifecycle that wraps the server's request log, if it has one,
   * when the server starts.
   *
   * @return the listener to add with {@code environment.lifecycle().addEventListener}
   */
  static LifeCycle.Listener install() {
    return new LifeCycle.Listener() {
      @Override
      public void lifeCycleStarting(LifeCycle event) {
        if (event instanceof Server server
            && server.getRequestLog() != null
            && !(server.getRequestLog() instanceof PathOnlyRequestLog)) {
          RequestLog original = server.getRequestLog();
          if (original instanceof RequestLogImpl logback) {
            logback.setQuiet(true);
          }
          server.setRequestLog(new PathOnlyRequestLog(original));
        }
      }
    };
  }

  @Override
  public void log(Request request, Response response) {
    delegate.log(new Redacted(request), response);
  }

  /** The request as the log may see it. */
  private static final class Redacted extends Request.Wrapper {
    private final HttpURI uri;
    private final HttpFields headers;

    Redacted(Request request) {
      super(request);
      uri = HttpURI.build(request.getHttpURI()).query(null).asImmutable();
      headers =
          HttpFields.build(request.getHeaders()).remove(HttpHeader.AUTHORIZATION).asImmutable();
    }

    @Override
    public HttpURI getHttpURI() {
      return uri;
    }

    @Override
    public HttpFields getHeaders() {
      return headers;
    }
  }
}
