package dev.bothy.sync;

import java.util.List;
import java.util.Objects;

/**
 * The payload of {@code settings.updated}: a user changed some of their settings. The built-in test
 * event type of the log; the settings module emits it later.
 *
 * @param changedKeys the keys of the settings that changed, in the order they were written
 */
public record SettingsUpdated(List<String> changedKeys) {

  /** Copies the list. */
  public SettingsUpdated {
    changedKeys = List.copyOf(Objects.requireNonNull(changedKeys, "changedKeys"));
  }
}
