package dev.bothy.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The flow files under {@code docs/flows/}: each names the events its flow emits and, per event,
 * the bus handlers that consume it, in the table of its section "Events and their consumers"
 * ({@code | `event` | emitted by | `handler`, `handler` |}, or {@code none}). The check compares
 * them with the registered handlers.
 */
public final class FlowFiles {
  /** The folder of the flow files in the project. */
  public static final Path DIRECTORY =
      Path.of(System.getProperty("bothy.test.projectDir", ".")).resolve("docs/flows");

  private static final String SECTION = "## Events and their consumers";
  private static final Pattern ROW =
      Pattern.compile("^\\|\\s*`([a-z0-9_.]+)`\\s*\\|.*\\|(.*)\\|\\s*$");
  private static final Pattern NAME = Pattern.compile("`([a-z0-9_.]+)`");

  private FlowFiles() {}

  /**
   * Reads every flow file of a folder.
   *
   * @param directory the folder
   * @return per file name, the consumers it names per event, in file order
   * @throws IOException when a file cannot be read
   */
  public static Map<String, Map<String, List<String>>> read(Path directory) throws IOException {
    Map<String, Map<String, List<String>>> flows = new TreeMap<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
        flows.put(
            file.getFileName().toString(), parse(Files.readString(file, StandardCharsets.UTF_8)));
      }
    }
    return flows;
  }

  /**
   * Parses one flow file.
   *
   * @param text the file's text
   * @return the consumers named per event; empty when the section or its table is missing
   */
  public static Map<String, List<String>> parse(String text) {
    Map<String, List<String>> events = new LinkedHashMap<>();
    boolean inSection = false;
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("## ")) {
        inSection = line.strip().equals(SECTION);
        continue;
      }
      Matcher row = ROW.matcher(line);
      if (inSection && row.matches()) {
        List<String> names = new ArrayList<>();
        Matcher name = NAME.matcher(row.group(2));
        while (name.find()) {
          names.add(name.group(1));
        }
        events.put(row.group(1), names);
      }
    }
    return events;
  }

  /**
   * Compares the flow files with the registered handlers.
   *
   * @param flows per file, the consumers named per event
   * @param handlersByType the registered handlers per event type
   * @param types the names of the registered event types
   * @return one line per problem, empty when every file names exactly the handlers of its events
   */
  public static List<String> problems(
      Map<String, Map<String, List<String>>> flows,
      Map<String, List<String>> handlersByType,
      Set<String> types) {
    List<String> problems = new ArrayList<>();
    flows.forEach(
        (file, events) -> {
          if (events.isEmpty()) {
            problems.add(file + " has no table under \"" + SECTION + "\"");
          }
          events.forEach(
              (event, named) -> {
                if (!types.contains(event)) {
                  problems.add(file + " emits " + event + ", which is no registered event type");
                }
                List<String> registered = handlersByType.getOrDefault(event, List.of());
                for (String handler : registered) {
                  if (!named.contains(handler)) {
                    problems.add(
                        file + " emits " + event + " but does not name its handler " + handler);
                  }
                }
                for (String handler : named) {
                  if (!registered.contains(handler)) {
                    problems.add(
                        file
                            + " names "
                            + handler
                            + " for "
                            + event
                            + ", but no registered handler of that name takes it");
                  }
                }
              });
        });
    return problems;
  }
}
