package dev.bothy.api.http;

import dev.bothy.api.ApiMetrics;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import java.lang.reflect.Method;

/**
 * Reports each request to {@link ApiMetrics} by route template and status. The route is the matched
 * resource method's template ({@code GET /v1/events}), {@code unmatched} otherwise, so the label
 * set stays closed whatever paths clients send. For a stream it measures the time to the response
 * headers.
 */
@PreMatching
public final class MetricsFilter implements ContainerRequestFilter, ContainerResponseFilter {
  private static final String STARTED = "bothy.request.started";

  private final ApiMetrics metrics;

  @Context private ResourceInfo resource;

  /**
   * Creates the filter.
   *
   * @param metrics where requests are reported
   */
  public MetricsFilter(ApiMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(STARTED, System.nanoTime());
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    Object started = request.getProperty(STARTED);
    long nanos = started instanceof Long l ? System.nanoTime() - l : 0;
    metrics.request(route(request.getMethod()), response.getStatus(), nanos);
  }

  private String route(String httpMethod) {
    Method method = resource == null ? null : resource.getResourceMethod();
    if (method == null) {
      return "unmatched";
    }
    return httpMethod + " " + template(resource.getResourceClass(), method);
  }

  /**
   * The path template of a resource method: its class's {@code @Path} and its own.
   *
   * @param type the resource class
   * @param method the method
   * @return the template, such as {@code /v1/events/stream}; a path parameter shows as {@code
   *     :name} ({@code /v1/webhooks/subscriptions/:id}), since braces delimit the labels in a
   *     Dropwizard metric name
   */
  static String template(Class<?> type, Method method) {
    Path classPath = type.getAnnotation(Path.class);
    Path methodPath = method.getAnnotation(Path.class);
    String path = (classPath == null ? "" : classPath.value());
    if (methodPath != null) {
      path = path + "/" + methodPath.value();
    }
    return ("/" + path)
        .replaceAll("/+", "/")
        .replaceAll("(.)/$", "$1")
        .replaceAll("\\{([^}/:]+)(:[^}]*)?}", ":$1");
  }
}
