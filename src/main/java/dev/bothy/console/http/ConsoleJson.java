package dev.bothy.console.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.RelayState;
import dev.bothy.console.app.HistorySampler;
import dev.bothy.console.domain.History;
import dev.bothy.platform.jobs.JobError;
import dev.bothy.platform.jobs.JobView;
import dev.bothy.sync.ConsumerState;
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
   * @param relay the relay, {@code null} without {@code bus.nats.url}
   * @param readAt when the server read it
   */
  record Overview(
      Caller token,
      LogSummary log,
      List<ConsumerOut> consumers,
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
   */
  record LogSummary(
      @JsonProperty("head_seq") long headSeq,
      @JsonProperty("oldest_retained_seq") long oldestRetainedSeq,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("append_rate_per_second")
          Double appendRate) {}

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
   * @param consumers each consumer's lag and pending age
   */
  record SampleOut(
      String at,
      @JsonProperty("head_seq") long headSeq,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("append_rate_per_second")
          Double appendRate,
      @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("relay_lag") Long relayLag,
      List<PointOut> consumers) {
    static SampleOut of(History.Point p) {
      History.Sample s = p.sample();
      return new SampleOut(
          s.at().toString(),
          s.headSeq(),
          number(p.appendRate()),
          s.relayLag().isPresent() ? s.relayLag().getAsLong() : null,
          s.consumers().stream()
              .map(c -> new PointOut(c.name(), c.lag(), c.pendingAgeSeconds()))
              .toList());
    }
  }

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
  record Count(long value, boolean capped, int cap, String method) {}

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
      List<ErrorOut> errors) {
    static JobOut of(JobView j) {
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
          j.errors().stream().map(ErrorOut::of).toList());
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
}
