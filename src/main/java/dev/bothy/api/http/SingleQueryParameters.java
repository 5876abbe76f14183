package dev.bothy.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Refuses a query parameter given twice, except the ones that are lists ({@code type}): the
 * resource would read the first value and drop the others without a word, so {@code
 * limit=2&limit=3} would look accepted. Runs after the token checks, so a stranger still gets
 * {@code 401}.
 */
@Priority(Priorities.USER)
final class SingleQueryParameters implements ContainerRequestFilter {
  /** The parameters that repeat by design: each {@code type} adds one to the events filter. */
  static final Set<String> LISTS = Set.of("type");

  @Override
  public void filter(ContainerRequestContext request) {
    for (Map.Entry<String, List<String>> p :
        request.getUriInfo().getQueryParameters(false).entrySet()) {
      if (p.getValue().size() > 1 && !LISTS.contains(p.getKey())) {
        // The name is the client's text: capped wherever the problem repeats it.
        String name = ApiProblem.echo(p.getKey());
        throw ApiProblem.of(ProblemType.INVALID_REQUEST, "Send " + name + " once.")
            .with("parameter", name);
      }
    }
  }
}
