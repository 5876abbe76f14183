package dev.bothy.api.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * What the row of an {@code Idempotency-Key} keeps of a fresh append, in its {@code response}
 * column: the head of the log read before the append and the events' ids, as {@code "append <head>
 * <id> <id> ..."}. It is written before the events have numbers (before the {@code event_seq} lock
 * of the sync phase); a replay reads the numbers of the ids from the log, reading forward from the
 * head, and renders the response again.
 *
 * @param headBefore the head before the append: every event of the unit has a greater number
 * @param ids the events' ids, in append order
 */
record StoredAppend(long headBefore, List<UUID> ids) {
  private static final String PREFIX = "append ";

  StoredAppend {
    ids = List.copyOf(Objects.requireNonNull(ids, "ids"));
  }

  /** Returns the column's text. */
  String encode() {
    StringBuilder text = new StringBuilder(PREFIX).append(headBefore);
    for (UUID id : ids) {
      text.append(' ').append(id);
    }
    return text.toString();
  }

  /**
   * Reads the column's text.
   *
   * @param text the {@code response} column
   * @return the stored append, or empty for a row an earlier version wrote as the response's text
   */
  static Optional<StoredAppend> decode(String text) {
    if (!text.startsWith(PREFIX)) {
      return Optional.empty();
    }
    String[] parts = text.substring(PREFIX.length()).split(" ");
    List<UUID> ids = new ArrayList<>(parts.length - 1);
    for (int i = 1; i < parts.length; i++) {
      ids.add(UUID.fromString(parts[i]));
    }
    return Optional.of(new StoredAppend(Long.parseLong(parts[0]), ids));
  }
}
