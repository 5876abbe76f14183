package dev.bothy.console.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.BusConsumerState;
import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetterError;
import dev.bothy.bus.RelayState;
import dev.bothy.console.ProcessReadings;
import dev.bothy.console.app.HistorySampler;
import dev.bothy.console.domain.History;
import dev.bothy.platform.jobs.JobError;
import dev.bothy.platform.jobs.JobView;
import dev.bothy.sync.ConsumerState;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.Subscription;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The JSON documents of the console's API, with snake_case members like {@code jobs ... --json}.
 * Times are ISO 8601 strings; a member that does not apply is {@code null}.
 */
final class ConsoleJson {
  private ConsoleJson() {}

  /**
   * {@code GET /console/api/overview}.
   *
   * @param token who asks: the token's name and whether it may act now
   * @param log the event log
   * @param consumers the worker consumers with a cursor row
   * @param busConsumers the NATS durables this process consumes, empty on the log transport
   * @param relay the relay, {@code null} without {@code bus.nats.url}
   * @param readAt when the server read it
   */
  record Overview(
      Caller token,
      LogSummary log,
      List<ConsumerOut> consumers,
      @JsonProperty("bus_consumers") List<DurableOut> busConsumers,
      @JsonInclude(JsonInclude.Include.ALWAYS) RelayOut relay,
      @JsonProperty("read_at") String readAt) {}

  /**
   * The caller.
   *
   * @param name the token's configured name
   * @param canAct whether actions pass: {@code admin:write} and {@code console.readOnly} false
   * @param readOnly {@code console.readOnly}
   */
  record Caller(
      String name,
      @JsonProperty("can_act") boolean canAct,
      @JsonProperty("read_only") boolean readOnly) {}

  /**
   * The event log.
   *
   * @param headSeq the highest committed number
   * @param oldestRetainedSeq the smallest number retention left
   * @param appendRate events per second between the last two history samples, {@code null} before
   *     the second sample
   * @param seqLockHeld this process's {@code event_seq} lock hold times, {@code null} before its
   *     first append
   */
  record LogSummary(
      @JsonProperty("head_seq") long headSeq,
      @JsonProperty("oldest_retained_seq") long oldestRetainedSeq,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("append_rate_per_second")
          Double appendRate,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("seq_lock_held")
          SeqLockOut seqLockHeld) {}

  /**
   * How long this process's appending units held the {@code event_seq} lock.
   *
   * @param units the units counted since the process started
   * @param p50Millis the median, in milliseconds
   * @param p99Millis the 99th percentile, in milliseconds
   * @param maxMillis the longest kept, in milliseconds
   */
  record SeqLockOut(
      long units,
      @JsonProperty("p50_ms") double p50Millis,
      @JsonProperty("p99_ms") double p99Millis,
      @JsonProperty("max_ms") double maxMillis) {
    static SeqLockOut of(ProcessReadings.SeqLockHeld h) {
      return new SeqLockOut(h.units(), h.p50Millis(), h.p99Millis(), h.maxMillis());
    }
  }

  /**
   * A NATS durable's counts, as this process last sampled them.
   *
   * @param durable its name
   * @param pending matching messages not yet delivered
   * @param ackPending delivered and not answered, those waiting out a nak's delay included
   * @param redelivered delivered more than once and not yet answered
   */
  record DurableOut(
      String durable,
      long pending,
      @JsonProperty("ack_pending") long ackPending,
      long redelivered) {
    static DurableOut of(BusConsumerState s) {
      return new DurableOut(s.durable(), s.pending(), s.ackPending(), s.redelivered());
    }
  }

  /**
   * {@code GET /console/api/history}.
   *
   * @param intervalSeconds {@code console.sampleInterval}
   * @param windowSeconds {@code console.historyWindow}
   * @param samples oldest first
   */
  record HistoryOut(
      @JsonProperty("interval_seconds") double intervalSeconds,
      @JsonProperty("window_seconds") double windowSeconds,
      List<SampleOut> samples) {}

  /**
   * One history sample.
   *
   * @param at when it was read
   * @param headSeq the log's head
   * @param appendRate events per second since the previous sample, or {@code null}
   * @param relayLag the relay's lag, or {@code null} without a bus
   * @param jobRates jobs per second since the previous sample, or {@code null} for the first
   * @param consumers each consumer's lag and pending age
   * @param busConsumers each NATS durable's counts
   */
  record SampleOut(
      String at,
      @JsonProperty("head_seq") long headSeq,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("append_rate_per_second")
          Double appendRate,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("relay_lag") Long relayLag,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("job_rates") JobRatesOut jobRates,
      List<PointOut> consumers,
      @JsonProperty("bus_consumers") List<DurableOut> busConsumers) {
    static SampleOut of(History.Point p) {
      History.Sample s = p.sample();
      return new SampleOut(
          s.at().toString(),
          s.headSeq(),
          number(p.appendRate()),
          s.relayLag().isPresent() ? s.relayLag().getAsLong() : null,
          p.jobRates()
              .map(r -> new JobRatesOut(r.created(), r.completed(), r.discarded()))
              .orElse(null),
          s.consumers().stream()
              .map(c -> new PointOut(c.name(), c.lag(), c.pendingAgeSeconds()))
              .toList(),
          s.busConsumers().stream()
              .map(d -> new DurableOut(d.durable(), d.pending(), d.ackPending(), d.redelivered()))
              .toList());
    }
  }

  /**
   * Jobs per second between two samples, counted in the database (every process's jobs).
   *
   * @param created jobs inserted per second
   * @param completed jobs completed per second
   * @param discarded jobs discarded per second
   */
  record JobRatesOut(
      @JsonProperty("created_per_second") double created,
      @JsonProperty("completed_per_second") double completed,
      @JsonProperty("discarded_per_second") double discarded) {}

  /**
   * A consumer in a sample.
   *
   * @param name the consumer
   * @param lag events it had not processed
   * @param pendingAgeSeconds how old its oldest unprocessed event was
   */
  record PointOut(
      String name, long lag, @JsonProperty("pending_age_seconds") double pendingAgeSeconds) {}

  static Double number(OptionalDouble value) {
    return value.isPresent() ? value.getAsDouble() : null;
  }

  /**
   * A worker consumer.
   *
   * @param name its name
   * @param lastSeq its cursor
   * @param lag events it has not processed
   * @param pendingAgeSeconds how old its oldest unprocessed event is, 0 at the head
   * @param updatedAt when its cursor last moved
   */
  record ConsumerOut(
      String name,
      @JsonProperty("last_seq") long lastSeq,
      long lag,
      @JsonProperty("pending_age_seconds") double pendingAgeSeconds,
      @JsonProperty("updated_at") String updatedAt) {
    static ConsumerOut of(ConsumerState s, Instant now) {
      double age = HistorySampler.pendingAgeSeconds(s, now);
      return new ConsumerOut(s.name().value(), s.lastSeq(), s.lag(), age, s.updatedAt().toString());
    }
  }

  /**
   * The relay of this process.
   *
   * @param mode off, standby, active or halted
   * @param natsConnected whether its NATS connection is up
   * @param lag committed events the stream has not acknowledged
   * @param halt why it halted, or {@code null}
   */
  record RelayOut(
      String mode,
      @JsonProperty("nats_connected") boolean natsConnected,
      long lag,
      @JsonInclude(JsonInclude.Include.ALWAYS) String halt) {
    static RelayOut of(RelayState state, long lag) {
      return new RelayOut(
          state.mode().name().toLowerCase(java.util.Locale.ROOT),
          state.natsConnected(),
          lag,
          state.halt().map(h -> h.reason().code()).orElse(null));
    }
  }

  /**
   * {@code GET /console/api/jobs}.
   *
   * @param jobs the page, newest first
   * @param nextBefore the {@code before} of the next page, {@code null} on the last page
   * @param count how many jobs match the filter, capped
   */
  record JobsPage(
      List<JobOut> jobs,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("next_before") String nextBefore,
      Count count) {}

  /**
   * A count that stops at a cap.
   *
   * @param value the number of matching jobs, or the cap
   * @param capped true when at least {@code cap} jobs match: the real number is {@code value} or
   *     more
   * @param cap {@code console.countCap}
   * @param method how it was counted
   */
  record Count(long value, boolean capped, int cap, String method) {
    /** How the count is made, as the response says. */
    static final String METHOD = "count(*) over LIMIT cap+1";

    /**
     * The count of a {@code count(*)} over a {@code LIMIT cap + 1} subquery.
     *
     * @param counted what the subquery counted, at most {@code cap + 1}
     * @param cap {@code console.countCap}
     * @return {@code counted}, or {@code cap} and capped when more than {@code cap} matched
     */
    static Count of(long counted, int cap) {
      return new Count(Math.min(counted, cap), counted > cap, cap, METHOD);
    }
  }

  /**
   * A job.
   *
   * @param id its id
   * @param kind its kind
   * @param queue its queue
   * @param state its state
   * @param attempt attempts so far
   * @param maxAttempts attempts after which a failure discards it
   * @param priority 1 to 4
   * @param createdAt when it was inserted
   * @param scheduledAt when it is or was due
   * @param attemptedAt when its last attempt started, or {@code null}
   * @param finalizedAt when it finished, or {@code null}
   * @param errors its error history, oldest first
   * @param actions what an operator may do to it in its state: {@code retry}, {@code cancel}, both
   *     or neither (the page offers only these)
   */
  record JobOut(
      String id,
      String kind,
      String queue,
      String state,
      int attempt,
      @JsonProperty("max_attempts") int maxAttempts,
      int priority,
      @JsonProperty("created_at") String createdAt,
      @JsonProperty("scheduled_at") String scheduledAt,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("attempted_at") String attemptedAt,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("finalized_at") String finalizedAt,
      List<ErrorOut> errors,
      List<String> actions) {
    static JobOut of(JobView j) {
      List<String> actions = new java.util.ArrayList<>(2);
      if (j.state().operatorMayRetry()) {
        actions.add("retry");
      }
      if (j.state().operatorMayCancel()) {
        actions.add("cancel");
      }
      return new JobOut(
          j.id().toString(),
          j.kind(),
          j.queue(),
          j.state().code(),
          j.attempt(),
          j.maxAttempts(),
          j.priority(),
          j.createdAt().toString(),
          j.scheduledAt().toString(),
          j.attemptedAt().map(Instant::toString).orElse(null),
          j.finalizedAt().map(Instant::toString).orElse(null),
          j.errors().stream().map(ErrorOut::of).toList(),
          List.copyOf(actions));
    }
  }

  /**
   * One entry of a job's error history. The job's args are not shown: they are the producer's data.
   *
   * @param at when
   * @param attempt which attempt
   * @param kind error, timeout, panic, cancelled ...
   * @param error the error's class
   * @param message its message
   */
  record ErrorOut(String at, int attempt, String kind, String error, String message) {
    static ErrorOut of(JobError e) {
      return new ErrorOut(e.at().toString(), e.attempt(), e.kind(), e.error(), e.message());
    }
  }

  /**
   * The body of a bulk action.
   *
   * @param ids the jobs' ids
   */
  record BulkRequest(List<String> ids) {}

  /**
   * The answer of a bulk action: one outcome per id, in the order asked.
   *
   * @param results the outcomes
   */
  record BulkResult(List<BulkOutcome> results) {}

  /**
   * What a bulk action did to one job.
   *
   * @param id the id
   * @param outcome {@code done}, {@code not_found} or {@code conflict}
   * @param state the job's state after the action, or {@code null} when it did not happen
   * @param detail why it did not happen, or {@code null}
   */
  record BulkOutcome(
      String id,
      String outcome,
      @JsonInclude(JsonInclude.Include.ALWAYS) String state,
      @JsonInclude(JsonInclude.Include.ALWAYS) String detail) {}

  /**
   * {@code GET /console/api/dead-letters}.
   *
   * @param deadLetters the page, newest death first
   * @param nextBefore the {@code before} of the next page, {@code null} on the last page
   * @param count how many dead letters match, capped
   */
  record DeadLettersPage(
      @JsonProperty("dead_letters") List<DeadLetterOut> deadLetters,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("next_before") String nextBefore,
      Count count) {}

  /**
   * A dead letter of a bus handler. The event's payload is not shown: it is the producer's data.
   *
   * @param id its id
   * @param handler the handler's name
   * @param durable the consumer's durable name
   * @param eventId the event's id
   * @param eventSeq the event's number
   * @param eventType the event's type
   * @param errorKind the last failure's kind
   * @param errorClass the last failure's class
   * @param errorMessage the last failure's message
   * @param deliveries the deliveries made up to the last failure
   * @param deadAt when it last died
   * @param replayedAt when it was replayed since, or {@code null} while open
   * @param replays how many times it was replayed
   * @param open whether it waits for an operator (not replayed since it last died)
   * @param errors every death, oldest first; only in a single dead letter, absent from a page
   */
  record DeadLetterOut(
      String id,
      String handler,
      String durable,
      @JsonProperty("event_id") String eventId,
      @JsonProperty("event_seq") long eventSeq,
      @JsonProperty("event_type") String eventType,
      @JsonProperty("error_kind") String errorKind,
      @JsonProperty("error_class") String errorClass,
      @JsonProperty("error_message") String errorMessage,
      int deliveries,
      @JsonProperty("dead_at") String deadAt,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("replayed_at") String replayedAt,
      int replays,
      boolean open,
      @JsonInclude(JsonInclude.Include.NON_NULL) List<DeadLetterErrorOut> errors) {
    static DeadLetterOut of(DeadLetter l, List<DeadLetterError> errors) {
      return new DeadLetterOut(
          l.id().toString(),
          l.handler(),
          l.durable(),
          l.eventId().toString(),
          l.eventSeq(),
          l.eventType(),
          l.errorKind(),
          l.errorClass(),
          l.errorMessage(),
          l.deliveries(),
          l.deadAt().toString(),
          l.replayedAt().map(Instant::toString).orElse(null),
          l.replays(),
          l.open(),
          errors == null ? null : errors.stream().map(DeadLetterErrorOut::of).toList());
    }
  }

  /**
   * One death of a dead letter.
   *
   * @param at when
   * @param deliveries the deliveries made up to it
   * @param kind the error kind
   * @param error the failure's class
   * @param message its message
   */
  record DeadLetterErrorOut(String at, int deliveries, String kind, String error, String message) {
    static DeadLetterErrorOut of(DeadLetterError e) {
      return new DeadLetterErrorOut(
          e.at().toString(), e.deliveries(), e.kind(), e.error(), e.message());
    }
  }

  /**
   * {@code GET /console/api/webhooks/subscriptions}.
   *
   * @param subscriptions the page, in id (creation) order
   * @param nextAfter the {@code after} of the next page, {@code null} on the last page
   */
  record SubscriptionsPage(
      List<SubscriptionOut> subscriptions,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("next_after") String nextAfter) {}

  /**
   * A webhook subscription, without its secrets.
   *
   * @param id its id
   * @param url its target
   * @param eventTypes the event types it receives
   * @param ordered whether it gets one event at a time in order
   * @param rateLimit the most attempts per second
   * @param state active or disabled
   * @param disabledReason why it is disabled, or {@code null}
   * @param lastDeliveredSeq the highest number delivered with a 2xx answer
   * @param heldSeq the number an ordered subscription holds, or {@code null}
   * @param failingSince the first failure since the last success, or {@code null}
   * @param createdAt when it was created
   * @param updatedAt when it last changed
   */
  record SubscriptionOut(
      String id,
      String url,
      @JsonProperty("event_types") List<String> eventTypes,
      boolean ordered,
      @JsonProperty("rate_limit") int rateLimit,
      String state,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("disabled_reason")
          String disabledReason,
      @JsonProperty("last_delivered_seq") long lastDeliveredSeq,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("held_seq") Long heldSeq,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("failing_since") String failingSince,
      @JsonProperty("created_at") String createdAt,
      @JsonProperty("updated_at") String updatedAt) {
    static SubscriptionOut of(Subscription s) {
      return new SubscriptionOut(
          s.id().toString(),
          s.url(),
          s.eventTypes(),
          s.ordered(),
          s.rateLimit(),
          s.state().code(),
          s.disabledReason().map(r -> r.code()).orElse(null),
          s.lastDeliveredSeq(),
          s.heldSeq().isPresent() ? s.heldSeq().getAsLong() : null,
          s.failingSince().map(Instant::toString).orElse(null),
          s.createdAt().toString(),
          s.updatedAt().toString());
    }
  }

  /**
   * {@code GET /console/api/webhooks/subscriptions/{id}/attempts}.
   *
   * @param attempts the page, newest first
   * @param nextBefore the {@code before} of the next page, {@code null} on the last page
   * @param count how many attempts the subscription has, capped
   */
  record AttemptsPage(
      List<AttemptOut> attempts,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("next_before") String nextBefore,
      Count count) {}

  /**
   * One delivery attempt.
   *
   * @param id its id
   * @param eventSeq the event's number
   * @param eventId the event's id
   * @param attempt the delivery job's attempt, from 1
   * @param attemptedAt when the request was sent
   * @param durationMillis from the send to the answer or the error
   * @param outcome delivered, gone, retry_after or failed
   * @param responseStatus the HTTP status, or {@code null} without an answer
   * @param responseBody the answer's body as stored (cut at {@code webhooks.maxResponseBodyChars}),
   *     or {@code null}
   * @param errorKind the error without an answer, such as {@code timeout}, or {@code null}
   */
  record AttemptOut(
      String id,
      @JsonProperty("event_seq") long eventSeq,
      @JsonProperty("event_id") String eventId,
      int attempt,
      @JsonProperty("attempted_at") String attemptedAt,
      @JsonProperty("duration_ms") long durationMillis,
      String outcome,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("response_status")
          Integer responseStatus,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("response_body") String responseBody,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("error_kind") String errorKind) {
    static AttemptOut of(Attempt a) {
      return new AttemptOut(
          a.id().toString(),
          a.eventSeq(),
          a.eventId().toString(),
          a.attempt(),
          a.attemptedAt().toString(),
          a.duration().toMillis(),
          a.outcome().code(),
          a.responseStatus().isPresent() ? a.responseStatus().getAsInt() : null,
          a.responseBody().orElse(null),
          a.errorKind().orElse(null));
    }
  }
}
