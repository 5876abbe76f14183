package dev.bothy.console.http;

import dev.bothy.kernel.BothyException;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.AttemptKey;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.WebhookSubscriptions;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The webhook subscriptions and each one's attempt log, over the {@link WebhookSubscriptions} of
 * the public {@code /v1/webhooks/subscriptions} routes: read only (changes stay with the public API
 * and its tokens). Subscriptions page by id, attempts newest first with a keyset cursor and a
 * capped count. Secrets are never part of a subscription.
 */
@Path("/webhooks/subscriptions")
@Produces(MediaType.APPLICATION_JSON)
public final class WebhooksResource {
  private final WebhookSubscriptions subscriptions;
  private final int defaultPageSize;
  private final int maxPageSize;
  private final int countCap;

  WebhooksResource(
      WebhookSubscriptions subscriptions, int defaultPageSize, int maxPageSize, int countCap) {
    this.subscriptions = subscriptions;
    this.defaultPageSize = defaultPageSize;
    this.maxPageSize = maxPageSize;
    this.countCap = countCap;
  }

  /**
   * Lists a page of subscriptions in id (creation) order.
   *
   * @param after the {@code next_after} of the previous page, or nothing for the first
   * @param limit subscriptions per page, 1 to {@code console.maxPageSize}
   * @return the page
   */
  @GET
  public ConsoleJson.SubscriptionsPage list(
      @QueryParam("after") String after, @QueryParam("limit") String limit) {
    Optional<UUID> cursor =
        Optional.ofNullable(after)
            .filter(a -> !a.isEmpty())
            .map(a -> Paging.id("after", a, "a subscription id"));
    int size = Paging.limit(limit, defaultPageSize, maxPageSize);
    List<Subscription> rows = subscriptions.list(cursor, size + 1);
    List<Subscription> page = rows.subList(0, Math.min(size, rows.size()));
    String next = rows.size() > size ? page.get(page.size() - 1).id().toString() : null;
    return new ConsoleJson.SubscriptionsPage(
        page.stream().map(ConsoleJson.SubscriptionOut::of).toList(), next);
  }

  /**
   * Shows one subscription.
   *
   * @param id the id
   * @return the subscription
   */
  @GET
  @Path("/{id}")
  public ConsoleJson.SubscriptionOut show(@PathParam("id") String id) {
    UUID subscription = Paging.id("id", id, "a subscription id");
    return ConsoleJson.SubscriptionOut.of(
        subscriptions
            .find(subscription)
            .orElseThrow(() -> BothyException.notFound("no subscription " + subscription)));
  }

  /**
   * Lists a page of a subscription's delivery attempts, newest first.
   *
   * @param id the subscription's id
   * @param before the {@code next_before} of the previous page, or nothing for the first
   * @param limit attempts per page, 1 to {@code console.maxPageSize}
   * @return the page with the capped count of the subscription's attempts
   */
  @GET
  @Path("/{id}/attempts")
  public ConsoleJson.AttemptsPage attempts(
      @PathParam("id") String id,
      @QueryParam("before") String before,
      @QueryParam("limit") String limit) {
    UUID subscription = Paging.id("id", id, "a subscription id");
    Optional<AttemptKey> cursor =
        Paging.key("before", before).map(k -> new AttemptKey(k.at(), k.id()));
    int size = Paging.limit(limit, defaultPageSize, maxPageSize);
    List<Attempt> rows = subscriptions.attemptPage(subscription, cursor, size + 1);
    List<Attempt> page = rows.subList(0, Math.min(size, rows.size()));
    String next = null;
    if (rows.size() > size) {
      Attempt last = page.get(page.size() - 1);
      next = new Paging.Key(last.attemptedAt(), last.id()).encode();
    }
    long counted = subscriptions.countAttemptsUpTo(subscription, countCap + 1);
    return new ConsoleJson.AttemptsPage(
        page.stream().map(ConsoleJson.AttemptOut::of).toList(),
        next,
        ConsoleJson.Count.of(counted, countCap));
  }
}
