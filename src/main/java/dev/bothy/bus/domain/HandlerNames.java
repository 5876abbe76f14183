package dev.bothy.bus.domain;

import java.util.regex.Pattern;

/**
 * The shapes of bus names: a durable is {@code <module>_<name>}, a handler {@code <module>.<name>}
 * (the key of {@code event_deliveries} and the name in the flows' files), both lower case, and the
 * module of each handler is the module of its durable, which is the module that declares it.
 */
public final class HandlerNames {
  private static final Pattern DURABLE = Pattern.compile("([a-z][a-z0-9]*)_[a-z][a-z0-9_]*");
  private static final Pattern HANDLER = Pattern.compile("([a-z][a-z0-9]*)\\.[a-z][a-z0-9_]*");

  /** The longest name: JetStream durables and metric labels stay short. */
  public static final int MAX_LENGTH = 64;

  private HandlerNames() {}

  /**
   * Whether a durable name is well formed.
   *
   * @param durable the name
   * @return true for names like {@code system_echo}
   */
  public static boolean validDurable(String durable) {
    return durable != null && durable.length() <= MAX_LENGTH && DURABLE.matcher(durable).matches();
  }

  /**
   * Whether a handler name is well formed.
   *
   * @param handler the name
   * @return true for names like {@code system.echo}
   */
  public static boolean validHandler(String handler) {
    return handler != null && handler.length() <= MAX_LENGTH && HANDLER.matcher(handler).matches();
  }

  /**
   * The module part of a well-formed durable or handler name.
   *
   * @param name a durable or handler name
   * @return the part before the first {@code _} or {@code .}
   */
  public static String moduleOf(String name) {
    int cut = 0;
    while (cut < name.length() && name.charAt(cut) != '_' && name.charAt(cut) != '.') {
      cut++;
    }
    return name.substring(0, cut);
  }
}
