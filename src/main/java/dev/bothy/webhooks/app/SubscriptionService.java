package dev.bothy.webhooks.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ReadResult;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.AttemptKey;
import dev.bothy.webhooks.CreatedSubscription;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.NewSubscription;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionChange;
import dev.bothy.webhooks.SubscriptionState;
import dev.bothy.webhooks.TargetNotAllowed;
import dev.bothy.webhooks.WebhookSubscriptions;
import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookTargetRefused;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The operator's verbs on subscriptions ({@link WebhookSubscriptions}), each in its own unit of
 * work. Every verb that changes a subscription locks its row first, so it and the consumer's round
 * or a delivery's outcome happen one after the other.
 */
public final class SubscriptionService implements WebhookSubscriptions {
  /**
   * The settings of the verbs.
   *
   * @param defaultRateLimit {@code webhooks.defaultRateLimit}: attempts per second when a
   *     subscription names none
   * @param maxRateLimit {@code webhooks.maxRateLimit}: the highest rate limit a subscription may
   *     ask for
   * @param maxUrlLength {@code webhooks.maxUrlLength}: the longest target URL
   * @param maxEventTypes {@code webhooks.maxEventTypes}: the most event types of one subscription
   * @param secretRotationWindow {@code webhooks.secretRotationWindow}: how long a replaced secret
   *     keeps signing
   * @param pageSize {@code consumer.batchSize}: events per read of a recovery
   */
  public record Settings(
      int defaultRateLimit,
      int maxRateLimit,
      int maxUrlLength,
      int maxEventTypes,
      Duration secretRotationWindow,
      int pageSize) {
    /** Checks the fields. */
    public Settings {
      Objects.requireNonNull(secretRotationWindow, "secretRotationWindow");
    }
  }

  private final UnitOfWork unitOfWork;
  private final SubscriptionRepository subscriptions;
  private final AttemptRepository attempts;
  private final EventLog log;
  private final EventTypes types;
  private final JobInserter inserter;
  private final OrderedChain chain;
  private final TargetGuard guard;
  private final Clock clock;
  private final Settings settings;

  /**
   * Creates the service.
   *
   * @param unitOfWork the unit of work
   * @param subscriptions the subscriptions' store
   * @param attempts the attempts' store
   * @param log the event log
   * @param types the event type catalogue
   * @param inserter the job inserter
   * @param chain moves ordered subscriptions
   * @param guard the network rules with DNS, for the creation-time check of a target
   * @param clock the clock
   * @param settings the settings
   */
  public SubscriptionService(
      UnitOfWork unitOfWork,
      SubscriptionRepository subscriptions,
      AttemptRepository attempts,
      EventLog log,
      EventTypes types,
      JobInserter inserter,
      OrderedChain chain,
      TargetGuard guard,
      Clock clock,
      Settings settings) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.attempts = Objects.requireNonNull(attempts, "attempts");
    this.log = Objects.requireNonNull(log, "log");
    this.types = Objects.requireNonNull(types, "types");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    this.chain = Objects.requireNonNull(chain, "chain");
    this.guard = Objects.requireNonNull(guard, "guard");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  @Override
  public CreatedSubscription create(NewSubscription request) {
    String url = checkUrl(request.url());
    List<String> eventTypes = checkTypes(request.eventTypes());
    int rateLimit = checkRateLimit(request.rateLimit().orElse(settings.defaultRateLimit()));
    String secret = WebhookSecret.generate().encoded();
    // The answer shows what the row holds: PostgreSQL keeps microseconds.
    Instant now = clock.now().truncatedTo(ChronoUnit.MICROS);
    Subscription view =
        new Subscription(
            Ids.newId(),
            url,
            eventTypes,
            request.ordered(),
            rateLimit,
            SubscriptionState.ACTIVE,
            Optional.empty(),
            0,
            OptionalLong.empty(),
            Optional.empty(),
            Optional.empty(),
            now,
            now);
    unitOfWork.run(
        () -> {
          subscriptions.insert(new StoredSubscription(view, secret, Optional.empty(), 0));
          return null;
        });
    return new CreatedSubscription(view, secret);
  }

  @Override
  public List<Subscription> list(Optional<UUID> after, int limit) {
    if (limit < 1) {
      throw BothyException.invalid("limit must be at least 1");
    }
    return unitOfWork.run(() -> subscriptions.list(after, limit));
  }

  @Override
  public Optional<Subscription> find(UUID id) {
    return unitOfWork.run(() -> subscriptions.find(id).map(StoredSubscription::view));
  }

  @Override
  public Subscription update(UUID id, SubscriptionChange change) {
    Optional<String> url = change.url().map(this::checkUrl);
    Optional<List<String>> eventTypes = change.eventTypes().map(this::checkTypes);
    change.rateLimit().ifPresent(this::checkRateLimit);
    return unitOfWork.run(
        () -> {
          Subscription s = locked(id).view();
          String newUrl = url.orElse(s.url());
          // A set: the same types in another order are no change.
          List<String> newTypes =
              eventTypes
                  .filter(
                      t -> !java.util.Set.copyOf(t).equals(java.util.Set.copyOf(s.eventTypes())))
                  .orElse(s.eventTypes());
          int newRate = change.rateLimit().orElse(s.rateLimit());
          if (newUrl.equals(s.url())
              && newTypes.equals(s.eventTypes())
              && newRate == s.rateLimit()) {
            // Nothing changes, so neither does updated_at: a client repeating a PATCH (or
            // sending {}) does not make the subscription look edited.
            return s;
          }
          subscriptions.updateFields(id, newUrl, newTypes, newRate, clock.now());
          return subscriptions.find(id).orElseThrow().view();
        });
  }

  @Override
  public Subscription disable(UUID id) {
    return unitOfWork.run(
        () -> {
          Subscription s = locked(id).view();
          if (s.state() == SubscriptionState.ACTIVE) {
            subscriptions.disable(id, DisabledReason.MANUAL, clock.now());
          }
          return subscriptions.find(id).orElseThrow().view();
        });
  }

  @Override
  public Subscription enable(UUID id) {
    return unitOfWork.run(
        () -> {
          StoredSubscription stored = locked(id);
          Subscription s = stored.view();
          if (s.state() == SubscriptionState.ACTIVE) {
            return s;
          }
          int generation =
              subscriptions.activate(id, s.heldSeq(), s.lastDeliveredSeq(), clock.now());
          // The held event of an ordered subscription is delivered first, by a new chain.
          if (s.ordered() && s.heldSeq().isPresent()) {
            inserter.insertTx(
                List.of(DeliveryJobs.delivery(id, generation, s.heldSeq().getAsLong())));
          }
          return subscriptions.find(id).orElseThrow().view();
        });
  }

  @Override
  public void delete(UUID id) {
    boolean deleted = unitOfWork.run(() -> subscriptions.delete(id));
    if (!deleted) {
      throw notFound();
    }
  }

  @Override
  public CreatedSubscription rotateSecret(UUID id) {
    String secret = WebhookSecret.generate().encoded();
    return unitOfWork.run(
        () -> {
          StoredSubscription stored = locked(id);
          Instant now = clock.now();
          Optional<Instant> stillSigning =
              stored.view().previousSecretExpiresAt().filter(now::isBefore);
          if (stillSigning.isPresent()) {
            throw BothyException.conflict(
                "The secret replaced by the last rotation signs until previous_secret_expires_at "
                    + stillSigning.get()
                    + " (webhooks.secretRotationWindow); rotating again now would stop it at once"
                    + " while receivers may still hold it: rotate after that time");
          }
          subscriptions.rotate(
              id, secret, stored.secret(), now.plus(settings.secretRotationWindow()), now);
          return new CreatedSubscription(subscriptions.find(id).orElseThrow().view(), secret);
        });
  }

  @Override
  public Subscription recover(UUID id, long fromSeq) {
    return unitOfWork.run(
        () -> {
          StoredSubscription stored = locked(id);
          Subscription s = stored.view();
          long head = log.head();
          long min = log.minRetained();
          if (fromSeq < Math.max(1, min) || fromSeq > head + 1) {
            throw BothyException.invalidAt(
                "/from_seq",
                "from_seq must be within the retained log: from the oldest retained event to the"
                    + " head plus one");
          }
          if (s.ordered()) {
            int generation =
                subscriptions.activate(id, OptionalLong.empty(), fromSeq - 1, clock.now());
            StoredSubscription fresh = subscriptions.find(id).orElseThrow();
            chain.advance(fresh, generation, fromSeq - 1);
          } else {
            int generation =
                subscriptions.activate(id, OptionalLong.empty(), s.lastDeliveredSeq(), clock.now());
            queueMatching(id, s.eventTypes(), generation, fromSeq - 1, head);
          }
          return subscriptions.find(id).orElseThrow().view();
        });
  }

  @Override
  public List<Attempt> attempts(
      UUID id, OptionalLong eventSeq, Optional<AttemptKey> before, int limit) {
    Objects.requireNonNull(eventSeq, "eventSeq");
    Objects.requireNonNull(before, "before");
    if (limit < 1) {
      throw BothyException.invalid("limit must be at least 1");
    }
    return unitOfWork.run(
        () -> {
          if (subscriptions.find(id).isEmpty()) {
            throw notFound();
          }
          return attempts.list(id, eventSeq, before, limit);
        });
  }

  @Override
  public long countAttemptsUpTo(UUID id, int cap) {
    if (cap < 1) {
      throw BothyException.invalid("cap must be at least 1");
    }
    return unitOfWork.run(
        () -> {
          if (subscriptions.find(id).isEmpty()) {
            throw notFound();
          }
          return attempts.countUpTo(id, cap);
        });
  }

  @Override
  public void resend(UUID id, long eventSeq) {
    unitOfWork.run(
        () -> {
          StoredSubscription stored = locked(id);
          Subscription s = stored.view();
          if (s.state() != SubscriptionState.ACTIVE) {
            throw BothyException.conflict("The subscription is disabled; enable it first");
          }
          ReadResult read = log.readAfter(Math.max(0, eventSeq - 1), 1);
          boolean found =
              eventSeq >= 1
                  && read instanceof ReadResult.Page page
                  && !page.events().isEmpty()
                  && page.events().get(0).seq() == eventSeq
                  && s.eventTypes().contains(page.events().get(0).type());
          if (!found) {
            throw BothyException.invalidAt(
                "/seq", "seq must name a retained event of one of the subscription's event types");
          }
          inserter.insertTx(List.of(DeliveryJobs.resend(id, stored.generation(), eventSeq)));
          return null;
        });
  }

  /**
   * Queues the deliveries of every matching event after {@code afterSeq} up to {@code head}; the
   * consumer queues the later ones, and the unique keys make the two meet without a double.
   */
  private void queueMatching(
      UUID id, List<String> eventTypes, int generation, long afterSeq, long head) {
    long after = afterSeq;
    while (after < head) {
      ReadResult read = log.readAfter(after, settings.pageSize());
      if (!(read instanceof ReadResult.Page page) || page.events().isEmpty()) {
        return;
      }
      List<JobInsert> jobs = new ArrayList<>();
      for (Event e : page.events()) {
        if (e.seq() <= head && eventTypes.contains(e.type())) {
          jobs.add(DeliveryJobs.delivery(id, generation, e.seq()));
        }
      }
      if (!jobs.isEmpty()) {
        inserter.insertTx(jobs);
      }
      after = page.nextAfter();
    }
  }

  private StoredSubscription locked(UUID id) {
    return subscriptions.lock(id).orElseThrow(SubscriptionService::notFound);
  }

  private static BothyException notFound() {
    return BothyException.notFound("no webhook subscription has this id");
  }

  private String checkUrl(String url) {
    if (url.isBlank() || url.length() > settings.maxUrlLength()) {
      throw BothyException.invalidAt(
          "/url", "url must be an absolute URL of at most webhooks.maxUrlLength characters");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw BothyException.invalidAt("/url", "url is not a valid URL");
    }
    if (uri.getRawFragment() != null) {
      throw BothyException.invalidAt("/url", "url must not have a fragment");
    }
    try {
      guard.resolveChecked(uri);
    } catch (WebhookTargetRefused refused) {
      throw new TargetNotAllowed(refused.code());
    }
    return url;
  }

  /** The distinct types in their first order: a set, counted after repeats are dropped. */
  private List<String> checkTypes(List<String> eventTypes) {
    LinkedHashSet<String> distinct = new LinkedHashSet<>();
    for (int i = 0; i < eventTypes.size(); i++) {
      String t = eventTypes.get(i);
      if (distinct.add(t) && types.find(t).isEmpty()) {
        throw BothyException.invalidAt(
            "/event_types/" + i, "event_types names an unknown event type");
      }
    }
    if (distinct.isEmpty() || distinct.size() > settings.maxEventTypes()) {
      throw BothyException.invalidAt(
          "/event_types",
          "event_types must name 1 to webhooks.maxEventTypes registered event types");
    }
    return List.copyOf(distinct);
  }

  private int checkRateLimit(int rateLimit) {
    if (rateLimit < 1 || rateLimit > settings.maxRateLimit()) {
      throw BothyException.invalidAt(
          "/rate_limit", "rate_limit must be 1 to webhooks.maxRateLimit");
    }
    return rateLimit;
  }
}
