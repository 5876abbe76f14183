package dev.bothy.sync;

import java.util.Objects;
import java.util.UUID;

/**
 * The resource an event is about.
 *
 * @param type the resource type, such as {@code user}
 * @param id the resource's id
 */
public record ResourceRef(String type, UUID id) {

  /** Checks that no component is null. */
  public ResourceRef {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(id, "id");
  }
}
