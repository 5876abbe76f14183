package dev.bothy.console.http;

import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetterKey;
import dev.bothy.bus.DeadLetters;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead letters of bus handlers over the {@link DeadLetters} of {@code bus dead
 * list|show|replay}: a page newest first with a keyset cursor and a capped count, one dead letter
 * with its error history, and a replay, logged with the token's name.
 */
@Path("/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
public final class DeadLettersResource {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLettersResource.class);

  private final DeadLetters letters;
  private final int defaultPageSize;
  private final int maxPageSize;
  private final int countCap;

  DeadLettersResource(DeadLetters letters, int defaultPageSize, int maxPageSize, int countCap) {
    this.letters = letters;
    this.defaultPageSize = defaultPageSize;
    this.maxPageSize = maxPageSize;
    this.countCap = countCap;
  }

  /**
   * Lists a page of dead letters, newest death first.
   *
   * @param all {@code true} to list replayed ones too; open ones only otherwise
   * @param before the {@code next_before} of the previous page, or nothing for the first
   * @param limit dead letters per page, 1 to {@code console.maxPageSize}
   * @return the page with the capped count
   */
  @GET
  public ConsoleJson.DeadLettersPage list(
      @QueryParam("all") String all,
      @QueryParam("before") String before,
      @QueryParam("limit") String limit) {
    boolean includeReplayed = all(all);
    Optional<DeadLetterKey> cursor =
        Paging.key("before", before).map(k -> new DeadLetterKey(k.at(), k.id()));
    int size = Paging.limit(limit, defaultPageSize, maxPageSize);
    // One row more than the page tells whether a next page exists without a second query.
    List<DeadLetter> rows = letters.page(includeReplayed, cursor, size + 1);
    List<DeadLetter> page = rows.subList(0, Math.min(size, rows.size()));
    String next = null;
    if (rows.size() > size) {
      DeadLetter last = page.get(page.size() - 1);
      next = new Paging.Key(last.deadAt(), last.id()).encode();
    }
    long counted = letters.countUpTo(includeReplayed, countCap + 1);
    return new ConsoleJson.DeadLettersPage(
        page.stream().map(l -> ConsoleJson.DeadLetterOut.of(l, null)).toList(),
        next,
        ConsoleJson.Count.of(counted, countCap));
  }

  /**
   * Shows one dead letter with its error history.
   *
   * @param id the id
   * @return the dead letter
   */
  @GET
  @Path("/{id}")
  public ConsoleJson.DeadLetterOut show(@PathParam("id") String id) {
    UUID letter = Paging.id("id", id, "a dead letter id");
    return ConsoleJson.DeadLetterOut.of(letters.show(letter), letters.errors(letter));
  }

  /**
   * Replays a dead letter: marks it replayed and queues one {@code bus.dispatch} job that runs its
   * handler for its event again, in one unit.
   *
   * @param id the id
   * @param security the caller
   * @return the dead letter as replayed, with its error history
   */
  @POST
  @Path("/{id}/replay")
  @Acts
  public ConsoleJson.DeadLetterOut replay(
      @PathParam("id") String id, @Context SecurityContext security) {
    UUID letter = Paging.id("id", id, "a dead letter id");
    DeadLetter after = letters.replay(letter);
    LOG.info(
        "console action: action=replay dead_letter.id={} token.name={}",
        letter,
        security.getUserPrincipal().getName());
    return ConsoleJson.DeadLetterOut.of(after, letters.errors(letter));
  }

  private static boolean all(String text) {
    if (text == null || text.isEmpty() || text.equals("false")) {
      return false;
    }
    if (text.equals("true")) {
      return true;
    }
    throw Paging.invalid("all must be true or false, not '" + ConsoleProblem.echo(text) + "'.");
  }
}
