package dev.bothy.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The end state of one run, in named sections of sorted lines: {@code tables} (what the test's
 * {@link ChaosConsumer.StateReader} read), {@code follow-on events} (what the handlers appended:
 * type, resource and payload, the script's event ids written as {@code <script event k>}), {@code
 * delivery rows} (handler and script event or follow-on event) and {@code dead letters}.
 *
 * @param sections the sections, in a fixed order
 */
public record EndState(Map<String, List<String>> sections) {
  /** Copies the sections. */
  public EndState {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    sections.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    sections = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * Says where another end state first differs from this one, as a reader would want it: the
   * section, the line number, and the line expected and found (or which is missing).
   *
   * @param actual the end state of a run under a fault
   * @return empty when they are equal
   */
  public Optional<String> firstDifference(EndState actual) {
    Set<String> names = new LinkedHashSet<>(sections.keySet());
    names.addAll(actual.sections.keySet());
    for (String name : names) {
      List<String> want = sections.getOrDefault(name, List.of());
      List<String> got = actual.sections.getOrDefault(name, List.of());
      int shared = Math.min(want.size(), got.size());
      for (int i = 0; i < shared; i++) {
        if (!want.get(i).equals(got.get(i))) {
          return Optional.of(
              "section '"
                  + name
                  + "', line "
                  + (i + 1)
                  + ":\n  clean run: "
                  + want.get(i)
                  + "\n  this run:  "
                  + got.get(i));
        }
      }
      if (want.size() != got.size()) {
        boolean missing = want.size() > got.size();
        List<String> extra =
            (missing ? want : got).subList(shared, Math.max(want.size(), got.size()));
        return Optional.of(
            "section '"
                + name
                + "' has "
                + got.size()
                + " lines, the clean run "
                + want.size()
                + "; first "
                + (missing ? "missing" : "extra")
                + " line "
                + (shared + 1)
                + ": "
                + extra.get(0));
      }
    }
    return Optional.empty();
  }

  /**
   * Counts the lines of a section.
   *
   * @param section the section's name
   * @return its lines, 0 when absent
   */
  public int lines(String section) {
    return sections.getOrDefault(section, List.of()).size();
  }

  @Override
  public String toString() {
    List<String> out = new ArrayList<>();
    sections.forEach(
        (k, v) -> {
          out.add("[" + k + "]");
          v.forEach(line -> out.add("  " + line));
        });
    return String.join("\n", out);
  }
}
