package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders {@code docs/operations/configuration.md} from the configuration classes: every key of
 * Bothy's own sections with its type, default, constraints and {@link Doc} text.
 *
 * <p>A test compares the file with this rendering and fails when they differ; regenerate with
 * {@code mvn -B test -Dtest=ConfigurationReferenceTest -Dbothy.regenerate=true}.
 */
public final class ConfigurationReference {
  private ConfigurationReference() {}

  /**
   * Renders the reference.
   *
   * @return the Markdown text of {@code docs/operations/configuration.md}
   */
  public static String render() {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration reference\n\n")
        .append("Generated from the configuration classes in `dev.bothy.wire.config` by\n")
        .append("`ConfigurationReference`; do not edit by hand. Regenerate with\n")
        .append("`mvn -B test -Dtest=ConfigurationReferenceTest -Dbothy.regenerate=true`.\n\n")
        .append("Bothy reads one optional YAML file (`java -jar bothy.jar all config.yml`).\n")
        .append("Keys are camelCase. `${VAR}` is replaced from the environment, and an unset\n")
        .append("variable stops the start. A `-Ddw.<key>=<value>` system property overrides a\n")
        .append("key. Every key is validated at load: a bad value stops the start with a\n")
        .append("message that names the key, never a password. Rules that span keys live in\n")
        .append("`CrossKeyChecks`.\n\n")
        .append("Durations are written as a number and a unit: `250ms`, `5s`, `2m`, `1h`.\n");
    BothyConfiguration defaults = new BothyConfiguration();
    for (Field field : BothyConfiguration.class.getDeclaredFields()) {
      if (field.isAnnotationPresent(JsonProperty.class)) {
        section(out, field.getName(), field, value(field, defaults));
      }
    }
    out.append("\n## Dropwizard sections\n\n")
        .append("`server`, `logging` and `metrics` are Dropwizard's own; see the Dropwizard\n")
        .append("configuration reference (https://www.dropwizard.io/en/stable/manual/")
        .append("configuration.html). Bothy's defaults differ in these places:\n\n")
        .append("- `logging`: the console format is `")
        .append(BothyConfiguration.DEFAULT_LOG_FORMAT)
        .append("`, which shows the role of the process; the loggers ")
        .append(
            new java.util.TreeMap<>(BothyConfiguration.QUIET_LOGGERS)
                .entrySet().stream()
                    .map(e -> "`" + e.getKey() + "` at " + e.getValue())
                    .collect(java.util.stream.Collectors.joining(", ")))
        .append(". A file with its own `logging` section replaces both.\n")
        .append("- `server`: every role needs `server.type: default`; the `worker` role drops")
        .append(" `server.applicationConnectors` and serves the admin port only.\n")
        .append("- `server.adminConnectors`: a connector without `bindHost` binds 127.0.0.1, in")
        .append(" the default and in a file that lists its own connectors; set `bindHost` to")
        .append(" expose the port (it has no authentication).\n")
        .append("- The admin port's tasks (`/tasks/log-level`, `/tasks/gc`) answer 404.\n")
        .append("- `server.requestLog`: every format sees a request's path without its query")
        .append(" string and without its Authorization header.\n");
    return out.toString();
  }

  private static void section(StringBuilder out, String path, Field field, Object instance) {
    Class<?> type = field.getType();
    out.append("\n## `").append(path).append("`\n\n");
    Doc doc = type.getAnnotation(Doc.class);
    if (doc != null) {
      out.append(doc.value()).append("\n\n");
    }
    StringBuilder rows = new StringBuilder();
    List<Field> subsections = new ArrayList<>();
    for (Field child : type.getDeclaredFields()) {
      if (!child.isAnnotationPresent(JsonProperty.class)) {
        continue;
      }
      if (isSection(child.getType())) {
        subsections.add(child);
        continue;
      }
      Doc childDoc = child.getAnnotation(Doc.class);
      if (childDoc == null) {
        throw new IllegalStateException(
            "configuration key " + path + "." + child.getName() + " has no @Doc");
      }
      rows.append("| `")
          .append(path)
          .append('.')
          .append(child.getName())
          .append("` | ")
          .append(typeName(child.getType()))
          .append(" | ")
          .append(defaultText(value(child, instance)))
          .append(" | ")
          .append(constraints(child))
          .append(" | ")
          .append(childDoc.value())
          .append(" |\n");
    }
    // A section of subsections only (bus) gets no empty table.
    if (!rows.isEmpty()) {
      out.append("| key | type | default | constraints | description |\n")
          .append("|---|---|---|---|---|\n")
          .append(rows);
    }
    for (Field sub : subsections) {
      section(out, path + "." + sub.getName(), sub, value(sub, instance));
    }
  }

  private static boolean isSection(Class<?> type) {
    return type.getPackage() == ConfigurationReference.class.getPackage();
  }

  private static Object value(Field field, Object instance) {
    try {
      field.setAccessible(true);
      return field.get(instance);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String typeName(Class<?> type) {
    if (type == int.class || type == long.class || type == Integer.class) {
      return "integer";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "boolean";
    }
    if (type == Duration.class) {
      return "duration";
    }
    return type.getSimpleName().toLowerCase(Locale.ROOT);
  }

  private static String defaultText(Object value) {
    if (value == null) {
      return "(none)";
    }
    if (value instanceof Duration duration) {
      return "`" + compact(duration) + "`";
    }
    return "`" + value + "`";
  }

  private static String compact(Duration duration) {
    return compact(duration.getQuantity(), duration.getUnit());
  }

  /**
   * A duration in the syntax of the configuration keys, such as {@code 30s} or {@code 100ms}.
   *
   * @param quantity how many units
   * @param timeUnit the unit
   * @return what an operator types for it
   */
  static String compact(long quantity, java.util.concurrent.TimeUnit timeUnit) {
    String unit =
        switch (timeUnit) {
          case NANOSECONDS -> "ns";
          case MICROSECONDS -> "us";
          case MILLISECONDS -> "ms";
          case SECONDS -> "s";
          case MINUTES -> "m";
          case HOURS -> "h";
          case DAYS -> "d";
        };
    return quantity + unit;
  }

  private static String constraints(Field field) {
    List<String> parts = new ArrayList<>();
    Min min = field.getAnnotation(Min.class);
    if (min != null) {
      parts.add(">= " + min.value());
    }
    Max max = field.getAnnotation(Max.class);
    if (max != null) {
      parts.add("<= " + max.value());
    }
    MinDuration minDuration = field.getAnnotation(MinDuration.class);
    if (minDuration != null) {
      parts.add(">= " + compact(minDuration.value(), minDuration.unit()));
    }
    MaxDuration maxDuration = field.getAnnotation(MaxDuration.class);
    if (maxDuration != null) {
      parts.add("<= " + compact(maxDuration.value(), maxDuration.unit()));
    }
    if (field.isAnnotationPresent(NotBlank.class)) {
      parts.add("not blank");
    }
    Pattern pattern = field.getAnnotation(Pattern.class);
    if (pattern != null) {
      parts.add(pattern.message());
    }
    return parts.isEmpty() ? "" : String.join(", ", parts);
  }
}
