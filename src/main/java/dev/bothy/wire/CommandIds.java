package dev.bothy.wire;

import dev.bothy.kernel.Ids;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;

/**
 * The id argument of a command whose configuration file is optional ({@code jobs show [file] id},
 * {@code bus dead show [file] id}): read strictly by {@link Ids#parse}, and when the text is the
 * file (the id left out, so the lone argument was taken as the id), the error says so.
 */
final class CommandIds {
  private CommandIds() {}

  /**
   * Reads an id argument.
   *
   * @param text the argument
   * @param what what the id names, such as {@code "a job id"}
   * @param usage the command's form, such as {@code "jobs show [file] id"}
   * @return the id
   * @throws IllegalArgumentException one line the command prints: not a UUID, or a file
   */
  static UUID parse(String text, String what, String usage) {
    return Ids.parse(text)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    looksLikeAFile(text)
                        ? "'"
                            + text
                            + "' is a file, not "
                            + what
                            + ": give the id after the configuration file ("
                            + usage
                            + ")"
                        : "'" + text + "' is not " + what + " (a UUID)"));
  }

  private static boolean looksLikeAFile(String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".yml") || lower.endsWith(".yaml")) {
      return true;
    }
    try {
      return Files.isRegularFile(Path.of(text));
    } catch (InvalidPathException e) {
      return false;
    }
  }
}
