package dev.bothy.arch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds SQL text in Java sources: string literals that read as SQL, and calls of jOOQ's plain-SQL
 * API. Stores write SQL with jOOQ's DSL over the generated tables; SQL text is allowed only in the
 * named {@code static final String} constants of {@link #ALLOWED}, each with a comment above it
 * that says what jOOQ lacks.
 */
final class SqlText {

  /**
   * The only places that may hold SQL text: source file (relative to {@code src/main/java}) to the
   * names of its SQL constants. A new entry needs a reason in the constant's comment and in
   * docs/adr/0013-typed-sql-and-module-wiring.md.
   */
  static final Map<String, Set<String>> ALLOWED =
      Map.of(
          "dev/bothy/sync/adapters/postgres/JooqEventRepository.java", Set.of("INSERT_AND_NOTIFY"),
          "dev/bothy/sync/adapters/postgres/JooqPartitionRepository.java", Set.of("PARTITIONS"),
          "dev/bothy/platform/pg/Listener.java", Set.of("LISTEN"));

  // A literal that starts like a statement, or holds a clause or a cast no prose has.
  private static final Pattern SQL =
      Pattern.compile(
          "(?i)^\\s*(select|insert\\s+into|update\\s+\\S+\\s+set|delete\\s+from|with\\s+\\S+\\s+as"
              + "|truncate\\s+\\w+|(grant|revoke)\\s+\\w+.*\\s(on|to|from)\\s"
              + "|(create|alter|drop)\\s+(table|index|role|database|schema|view|function|sequence"
              + "|trigger|type|extension|or\\s+replace|unique))\\b"
              + "|(?i)^\\s*(listen|unlisten|notify)(\\s+\\w+)?\\s*$"
              + "|\\b(select\\s.+\\sfrom|insert\\s+into|delete\\s+from|on\\s+conflict|for\\s+update"
              + "|skip\\s+locked|returning\\s+\\w|order\\s+by|group\\s+by)\\b"
              + "|::[a-z_]+(\\[\\])?\\b");

  // jOOQ's plain-SQL entry points and JDBC statements take SQL text.
  private static final Pattern PLAIN_SQL_CALL =
      Pattern.compile(
          "\\.(resultQuery|query|fetch|execute|prepareStatement|executeQuery|executeUpdate)\\(\\s*\""
              + "|DSL\\.(sql|field|table|condition|query|resultQuery|raw)\\(\\s*\"");

  private static final Pattern LITERAL =
      Pattern.compile("\"\"\"[\\s\\S]*?\"\"\"|\"(\\\\.|[^\"\\\\\\n])*\"");
  private static final Pattern CONSTANT =
      Pattern.compile("static\\s+final\\s+String\\s+(\\w+)\\s*=([^;]*);");

  private SqlText() {}

  /**
   * Lists the SQL text of one source that is not in an allowed constant.
   *
   * @param name the file's path relative to the source root, for messages and the allowlist
   * @param source the Java source
   * @param allowed the constants of this file that may hold SQL
   * @return one line per violation, naming the file and what was found
   */
  static List<String> violations(String name, String source, Set<String> allowed) {
    String code = withoutComments(source);
    List<String> found = new ArrayList<>();
    List<int[]> allowedSpans = new ArrayList<>();
    List<String> declared = new ArrayList<>();
    Matcher constant = CONSTANT.matcher(code);
    while (constant.find()) {
      if (allowed.contains(constant.group(1))) {
        allowedSpans.add(new int[] {constant.start(), constant.end()});
        declared.add(constant.group(1));
        if (!commentAbove(source, constant.group(1))) {
          found.add(
              name + ": the SQL constant " + constant.group(1) + " has no comment saying why");
        }
      }
    }
    for (String a : allowed) {
      if (!declared.contains(a)) {
        found.add(name + ": the allowlisted constant " + a + " no longer exists");
      }
    }
    Matcher literal = LITERAL.matcher(code);
    while (literal.find()) {
      String text = literal.group();
      if (SQL.matcher(text.substring(1, text.length() - 1)).find()
          && allowedSpans.stream()
              .noneMatch(s -> s[0] <= literal.start() && literal.end() <= s[1])) {
        found.add(name + ": SQL text outside an allowlisted constant: " + text);
      }
    }
    Matcher call = PLAIN_SQL_CALL.matcher(code);
    while (call.find()) {
      found.add(name + ": plain SQL passed to " + call.group().replace("\"", ""));
    }
    return found;
  }

  /**
   * Scans every Java source under a root against {@link #ALLOWED}.
   *
   * @param root the source root, {@code src/main/java}
   * @return one line per violation
   */
  static List<String> scan(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      List<String> found = new ArrayList<>();
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        String name = root.relativize(file).toString().replace('\\', '/');
        found.addAll(
            violations(name, Files.readString(file), ALLOWED.getOrDefault(name, Set.of())));
      }
      for (String name : ALLOWED.keySet()) {
        if (!Files.exists(root.resolve(name))) {
          found.add(name + ": allowlisted, but the file no longer exists");
        }
      }
      return found;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean commentAbove(String source, String constantName) {
    Matcher m =
        Pattern.compile(
                "(//[^\\n]*|\\*/)\\s*\\n\\s*(private\\s+|public\\s+)?static\\s+final\\s+String\\s+"
                    + constantName
                    + "\\b")
            .matcher(source);
    return m.find();
  }

  // Blanks comments (keeping offsets and line breaks) so prose about SQL is not mistaken for it.
  private static String withoutComments(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (c == '"') {
        int end = literalEnd(source, i);
        out.append(source, i, end);
        i = end;
      } else if (source.startsWith("//", i)) {
        int end = source.indexOf('\n', i);
        end = end < 0 ? source.length() : end;
        out.append(" ".repeat(end - i));
        i = end;
      } else if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        end = end < 0 ? source.length() : end + 2;
        for (int k = i; k < end; k++) {
          out.append(source.charAt(k) == '\n' ? '\n' : ' ');
        }
        i = end;
      } else if (c == '\'' && i + 2 < source.length()) {
        int end = source.indexOf('\'', source.charAt(i + 1) == '\\' ? i + 3 : i + 2) + 1;
        out.append(source, i, end);
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static int literalEnd(String source, int start) {
    if (source.startsWith("\"\"\"", start)) {
      return source.indexOf("\"\"\"", start + 3) + 3;
    }
    int i = start + 1;
    while (source.charAt(i) != '"') {
      i += source.charAt(i) == '\\' ? 2 : 1;
    }
    return i + 1;
  }
}
