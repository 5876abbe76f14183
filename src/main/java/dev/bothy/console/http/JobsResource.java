package dev.bothy.console.http;

import dev.bothy.kernel.BothyException;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.JobView;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of the console over the {@link JobAdmin} of the {@code jobs} commands: a page by state
 * and kind with a keyset cursor and a capped count, one job, and retry and cancel of one job or of
 * up to {@code console.maxBulkJobs} jobs. Each action is logged with the token's name and the job's
 * id.
 */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
public final class JobsResource {
  private static final Logger LOG = LoggerFactory.getLogger(JobsResource.class);

  private final JobAdmin jobs;
  private final int defaultPageSize;
  private final int maxPageSize;
  private final int countCap;
  private final int maxBulkJobs;

  JobsResource(JobAdmin jobs, int defaultPageSize, int maxPageSize, int countCap, int maxBulkJobs) {
    this.jobs = jobs;
    this.defaultPageSize = defaultPageSize;
    this.maxPageSize = maxPageSize;
    this.countCap = countCap;
    this.maxBulkJobs = maxBulkJobs;
  }

  /**
   * Lists a page of jobs, newest first.
   *
   * @param state only this state, or all
   * @param kind only this kind, or all
   * @param before the {@code next_before} of the previous page, or nothing for the first
   * @param limit jobs per page, 1 to {@code console.maxPageSize}
   * @return the page with the capped count of the filter
   */
  @GET
  public ConsoleJson.JobsPage list(
      @QueryParam("state") String state,
      @QueryParam("kind") String kind,
      @QueryParam("before") String before,
      @QueryParam("limit") String limit) {
    Optional<JobState> byState =
        Optional.ofNullable(state).filter(s -> !s.isEmpty()).map(JobsResource::state);
    Optional<String> byKind = Optional.ofNullable(kind).filter(k -> !k.isEmpty());
    Optional<UUID> cursor =
        Optional.ofNullable(before).filter(b -> !b.isEmpty()).map(b -> id("before", b));
    int size = limit(limit);
    // One row more than the page tells whether a next page exists without a second query.
    List<JobView> rows = jobs.page(byState, byKind, cursor, size + 1);
    List<JobView> page = rows.subList(0, Math.min(size, rows.size()));
    String next = rows.size() > size ? page.get(page.size() - 1).id().toString() : null;
    long counted = jobs.countUpTo(byState, byKind, countCap + 1);
    ConsoleJson.Count count = ConsoleJson.Count.of(counted, countCap);
    return new ConsoleJson.JobsPage(
        page.stream().map(ConsoleJson.JobOut::of).toList(), next, count);
  }

  /**
   * Shows one job with its error history.
   *
   * @param id the id
   * @return the job
   */
  @GET
  @Path("/{id}")
  public ConsoleJson.JobOut show(@PathParam("id") String id) {
    return ConsoleJson.JobOut.of(jobs.show(id("id", id)));
  }

  /**
   * Makes a discarded, retryable, scheduled or cancelled job available now.
   *
   * @param id the id
   * @param security the caller
   * @return the job after the change
   */
  @POST
  @Path("/{id}/retry")
  @Acts
  public ConsoleJson.JobOut retry(@PathParam("id") String id, @Context SecurityContext security) {
    UUID job = id("id", id);
    JobView after = jobs.retry(job);
    logAction("retry", job, security);
    return ConsoleJson.JobOut.of(after);
  }

  /**
   * Cancels a job that has not finished.
   *
   * @param id the id
   * @param security the caller
   * @return the job after the change
   */
  @POST
  @Path("/{id}/cancel")
  @Acts
  public ConsoleJson.JobOut cancel(@PathParam("id") String id, @Context SecurityContext security) {
    UUID job = id("id", id);
    JobView after = jobs.cancel(job);
    logAction("cancel", job, security);
    return ConsoleJson.JobOut.of(after);
  }

  /**
   * Retries several jobs, each in its own unit: one that cannot be retried does not stop the rest.
   *
   * @param body the ids
   * @param security the caller
   * @return one outcome per id
   */
  @POST
  @Path("/retry")
  @Consumes(MediaType.APPLICATION_JSON)
  @Acts
  public ConsoleJson.BulkResult retryMany(
      ConsoleJson.BulkRequest body, @Context SecurityContext security) {
    return bulk("retry", body, security, jobs::retry);
  }

  /**
   * Cancels several jobs, each in its own unit.
   *
   * @param body the ids
   * @param security the caller
   * @return one outcome per id
   */
  @POST
  @Path("/cancel")
  @Consumes(MediaType.APPLICATION_JSON)
  @Acts
  public ConsoleJson.BulkResult cancelMany(
      ConsoleJson.BulkRequest body, @Context SecurityContext security) {
    return bulk("cancel", body, security, jobs::cancel);
  }

  private ConsoleJson.BulkResult bulk(
      String verb,
      ConsoleJson.BulkRequest body,
      SecurityContext security,
      Function<UUID, JobView> action) {
    if (body == null || body.ids() == null || body.ids().isEmpty()) {
      throw invalid("Send {\"ids\": [...]} with 1 to console.maxBulkJobs job ids.");
    }
    if (body.ids().size() > maxBulkJobs) {
      throw invalid(
          "A bulk action takes at most console.maxBulkJobs ("
              + maxBulkJobs
              + ") ids; this one has "
              + body.ids().size()
              + ".");
    }
    // Parse every id before acting on any: a typo in the list changes nothing.
    List<UUID> ids = new ArrayList<>();
    for (String text : body.ids()) {
      if (text == null) {
        throw invalid("An id of ids is null.");
      }
      ids.add(id("ids", text));
    }
    List<ConsoleJson.BulkOutcome> outcomes = new ArrayList<>();
    for (UUID id : ids) {
      try {
        JobView after = action.apply(id);
        logAction(verb, id, security);
        outcomes.add(
            new ConsoleJson.BulkOutcome(id.toString(), "done", after.state().code(), null));
      } catch (BothyException e) {
        switch (e.kind()) {
          case NOT_FOUND, CONFLICT ->
              outcomes.add(
                  new ConsoleJson.BulkOutcome(
                      id.toString(), e.kind().code(), null, e.getMessage()));
          default -> throw e;
        }
      }
    }
    return new ConsoleJson.BulkResult(outcomes);
  }

  private static void logAction(String verb, UUID job, SecurityContext security) {
    LOG.info(
        "console action: action={} job.id={} token.name={}",
        verb,
        job,
        security.getUserPrincipal().getName());
  }

  private int limit(String text) {
    return Paging.limit(text, defaultPageSize, maxPageSize);
  }

  private static JobState state(String text) {
    try {
      return JobState.fromCode(text);
    } catch (IllegalArgumentException e) {
      throw invalid(
          "state '"
              + ConsoleProblem.echo(text)
              + "' is not one of available, scheduled, running, retryable, completed, discarded,"
              + " cancelled.");
    }
  }

  private static UUID id(String name, String text) {
    return Paging.id(name, text, "a job id");
  }

  private static ConsoleProblem invalid(String detail) {
    return ConsoleProblem.of(ConsoleProblem.Type.INVALID_REQUEST, detail);
  }
}
