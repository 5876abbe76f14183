package dev.bothy.webhooks.adapters.http;

import dev.bothy.webhooks.app.HostResolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A resolver that gives one scripted answer per call, in order, and fails a call beyond the script:
 * so a test sees every lookup, and a second lookup within one attempt cannot go unnoticed.
 */
final class ScriptedResolver implements HostResolver {
  private final Deque<List<InetAddress>> answers = new ArrayDeque<>();
  private final AtomicInteger calls = new AtomicInteger();

  static ScriptedResolver answering(String... literals) {
    return new ScriptedResolver().then(literals);
  }

  ScriptedResolver then(String... literals) {
    try {
      InetAddress[] addresses = new InetAddress[literals.length];
      for (int i = 0; i < literals.length; i++) {
        addresses[i] = InetAddress.getByName(literals[i]);
      }
      synchronized (answers) {
        answers.add(List.of(addresses));
      }
      return this;
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("literals only", e);
    }
  }

  @Override
  public List<InetAddress> resolve(String host) throws UnknownHostException {
    calls.incrementAndGet();
    synchronized (answers) {
      List<InetAddress> next = answers.poll();
      if (next == null) {
        throw new UnknownHostException("no scripted answer left");
      }
      return next;
    }
  }

  int calls() {
    return calls.get();
  }
}
