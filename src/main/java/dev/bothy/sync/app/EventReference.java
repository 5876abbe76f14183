package dev.bothy.sync.app;

import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;

/**
 * Renders {@code docs/reference/events.md} from the event type catalogue: every type with its
 * version, aggregate (resource) type, description, payload fields and the bus handlers that consume
 * it. A test of the running assembly fails when the file is stale; regenerate with {@code mvn -B
 * test -Dtest=InProcessAppTest -Dbothy.regenerate=true}.
 */
public final class EventReference {
  private EventReference() {}

  /** What the reference says of a type no bus handler consumes. */
  static final String NO_HANDLER = "none";

  /**
   * Renders the reference.
   *
   * @param types the catalogue
   * @param handlersByType the names of the bus handlers registered for each type name (a type
   *     missing from the map has none); listed in name order
   * @return the Markdown text
   */
  public static String render(EventTypes types, Map<String, List<String>> handlersByType) {
    StringBuilder out = new StringBuilder();
    out.append("# Event reference\n\n")
        .append("Generated from the event type catalogue (`EventTypes`) by `EventReference`;\n")
        .append("do not edit by hand. Regenerate with\n")
        .append("`mvn -B test -Dtest=InProcessAppTest -Dbothy.regenerate=true`.\n\n")
        .append("Every event of the log has a registered type, declared in the registration\n")
        .append("file of the module that publishes it (`<Module>Events.registrations()`). The\n")
        .append("aggregate of an event is its resource: the type names the aggregate type, the\n")
        .append("envelope's `resource_id` is the aggregate id. The payload is the JSON of the\n")
        .append("type's payload record; a golden payload per type and version under\n")
        .append("`src/test/resources/golden/events/<type>.v<version>.json` must round-trip\n")
        .append("byte for byte. Handlers are the bus handlers registered for the type.\n")
        .append("Appended by: `clients` for a type clients append with `POST /v1/events`\n")
        .append("(scope `events:append`), `its module` for a type only its module appends,\n")
        .append("with the change it reports (the API refuses it).\n\n")
        .append("| type | version | aggregate | appended by | handlers | description |\n")
        .append("|---|---|---|---|---|---|\n");
    for (EventType<?> type : types.all()) {
      out.append("| `")
          .append(type.name())
          .append("` | ")
          .append(type.version())
          .append(" | `")
          .append(type.resourceType())
          .append("` | ")
          .append(type.origin() == EventType.Origin.API ? "clients" : "its module")
          .append(" | ")
          .append(handlers(handlersByType, type.name()))
          .append(" | ")
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

  private static String handlers(Map<String, List<String>> handlersByType, String type) {
    List<String> names = handlersByType.getOrDefault(type, List.of());
    if (names.isEmpty()) {
      return NO_HANDLER;
    }
    return String.join(", ", names.stream().sorted().map(n -> "`" + n + "`").toList());
  }

  private static String simpleTypeName(String typeName) {
    return typeName.replaceAll("([a-z][a-z0-9_]*\\.)+", "");
  }
}
