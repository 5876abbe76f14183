package dev.bothy.webhooks.app;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A transport that records every request and answers from a script, then with 200: for the tests of
 * the delivery job's verdicts without a network.
 */
final class FakeTransport implements WebhookTransport {
  final List<OutgoingRequest> sent = Collections.synchronizedList(new ArrayList<>());
  private final Deque<SendResult> script = new ArrayDeque<>();

  synchronized FakeTransport then(int status, Map<String, String> headers) {
    script.add(
        new SendResult(
            status, headers, "answer " + status, Duration.ofMillis(3), Optional.empty()));
    return this;
  }

  synchronized FakeTransport thenError(String kind) {
    script.add(new SendResult(0, Map.of(), "", Duration.ofMillis(3), Optional.of(kind)));
    return this;
  }

  @Override
  public synchronized SendResult send(OutgoingRequest request) {
    sent.add(request);
    SendResult next = script.poll();
    return next != null
        ? next
        : new SendResult(200, Map.of(), "ok", Duration.ofMillis(2), Optional.empty());
  }

  /** The numbers of the events sent, in order, read from the fixture's body {"seq":n}. */
  List<Long> seqs() {
    List<Long> seqs = new ArrayList<>();
    synchronized (sent) {
      for (OutgoingRequest r : sent) {
        String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
        seqs.add(Long.parseLong(body.replaceAll("[^0-9]", "")));
      }
    }
    return seqs;
  }
}
