package dev.bothy.sync.app;

import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import java.lang.reflect.RecordComponent;

/**
 * Renders {@code docs/reference/events.md} from the event type catalogue: every type with its
 * version, resource type, description and payload fields. A test fails when the file is stale;
 * regenerate with {@code mvn -B test -Dtest=EventCatalogueTest -Dbothy.regenerate=true}.
 */
public final class EventReference {
  private EventReference() {}

  /**
   * Renders the reference.
   *
   * @param types the catalogue
   * @return the Markdown text
   */
  public static String render(EventTypes types) {
    StringBuilder out = new StringBuilder();
    out.append("# Event reference\n\n")
        .append("Generated from the event type catalogue (`EventTypes`) by `EventReference`;\n")
        .append("do not edit by hand. Regenerate with\n")
        .append("`mvn -B test -Dtest=EventCatalogueTest -Dbothy.regenerate=true`.\n\n")
        .append("Every event of the log has a registered type. The payload is the JSON of the\n")
        .append("type's payload record; a golden payload per type under\n")
        .append("`src/test/resources/golden/events/` must round-trip byte for byte.\n\n")
        .append("| type | version | resource | description |\n")
        .append("|---|---|---|---|\n");
    for (EventType<?> type : types.all()) {
      out.append("| `")
          .append(type.name())
          .append("` | ")
          .append(type.version())
          .append(" | `")
          .append(type.resourceType())
          .append("` | ")
          .append(type.description())
          .append(" |\n");
    }
    for (EventType<?> type : types.all()) {
      out.append("\n## `").append(type.name()).append("` (version ").append(type.version());
      out.append(")\n\n").append(type.description()).append("\n\n");
      out.append("Payload `").append(type.payloadType().getSimpleName()).append("`:\n\n");
      out.append("| field | type |\n|---|---|\n");
      for (RecordComponent component : type.payloadType().getRecordComponents()) {
        out.append("| `")
            .append(component.getName())
            .append("` | `")
            .append(simpleTypeName(component.getGenericType().getTypeName()))
            .append("` |\n");
      }
    }
    return out.toString();
  }

  private static String simpleTypeName(String typeName) {
    return typeName.replaceAll("([a-z][a-z0-9_]*\\.)+", "");
  }
}
