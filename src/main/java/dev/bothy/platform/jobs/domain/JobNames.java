package dev.bothy.platform.jobs.domain;

import java.util.regex.Pattern;

/**
 * The shapes of kind and queue names: kinds are {@code module.name} (the owning module first, so a
 * kind's name says where its code lives), queues one lower-case word with underscores; both are
 * safe as metric label values and in log lines.
 */
public final class JobNames {
  private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*");
  private static final Pattern QUEUE = Pattern.compile("[a-z][a-z0-9_]{0,62}");

  private JobNames() {}

  /**
   * Whether a kind name is well formed.
   *
   * @param name the name
   * @return true for names like {@code sync.consumer_probe}
   */
  public static boolean validKind(String name) {
    return name != null && name.length() <= 128 && KIND.matcher(name).matches();
  }

  /**
   * Whether a queue name is well formed.
   *
   * @param name the name
   * @return true for names like {@code default} or {@code webhooks}
   */
  public static boolean validQueue(String name) {
    return name != null && QUEUE.matcher(name).matches();
  }
}
