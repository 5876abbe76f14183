package dev.bothy.instance.domain;

import dev.bothy.kernel.BothyException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Semantic versions after SemVer 2.0.0, with the precedence of its section 11. Hand-written: the
 * domain layer uses nothing but the JDK.
 *
 * <p>Versions are written without a {@code v}: {@code 1.4.0}, {@code 1.4.0-rc.1}, {@code
 * 1.4.0+build.7}. Build metadata is ignored for precedence.
 *
 * <pre>{@code
 * SemVer.compare("1.0.0-alpha", "1.0.0") < 0
 * }</pre>
 *
 * @param major the major version
 * @param minor the minor version
 * @param patch the patch version
 * @param preRelease the dot-separated pre-release identifiers, empty for a release
 */
public record SemVer(long major, long minor, long patch, List<String> preRelease)
    implements Comparable<SemVer> {

  // The regular expression of semver.org, section "Is there a suggested regular expression".
  private static final Pattern SEMVER =
      Pattern.compile(
          "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
              + "(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)"
              + "(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
              + "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$");

  /** Copies the identifiers, so the record stays immutable. */
  public SemVer {
    preRelease = List.copyOf(preRelease);
  }

  /**
   * Parses a version.
   *
   * @param text the version, such as {@code 1.0.0-rc.1}
   * @return the version
   * @throws BothyException {@code invalid} when the text is not a SemVer 2.0.0 version
   */
  public static SemVer parse(String text) {
    Matcher m = text == null ? null : SEMVER.matcher(text);
    if (m == null || !m.matches()) {
      throw BothyException.invalid("not a semantic version (SemVer 2.0.0): " + text);
    }
    try {
      List<String> pre = m.group(4) == null ? List.of() : List.of(m.group(4).split("\\."));
      return new SemVer(
          Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), pre);
    } catch (NumberFormatException e) {
      throw BothyException.invalid("semantic version number out of range: " + text);
    }
  }

  /**
   * Compares two versions by SemVer precedence.
   *
   * @param a a version
   * @param b another version
   * @return negative, zero or positive as {@code a} has lower, equal or higher precedence
   * @throws BothyException {@code invalid} when either is not a SemVer 2.0.0 version
   */
  public static int compare(String a, String b) {
    return parse(a).compareTo(parse(b));
  }

  @Override
  public int compareTo(SemVer other) {
    int c = Long.compare(major, other.major);
    if (c == 0) {
      c = Long.compare(minor, other.minor);
    }
    if (c == 0) {
      c = Long.compare(patch, other.patch);
    }
    if (c != 0) {
      return c;
    }
    // A pre-release has lower precedence than the release itself.
    if (preRelease.isEmpty() || other.preRelease.isEmpty()) {
      return Boolean.compare(preRelease.isEmpty(), other.preRelease.isEmpty());
    }
    int shared = Math.min(preRelease.size(), other.preRelease.size());
    for (int i = 0; i < shared; i++) {
      c = compareIdentifier(preRelease.get(i), other.preRelease.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(preRelease.size(), other.preRelease.size());
  }

  private static int compareIdentifier(String a, String b) {
    boolean numericA = isNumeric(a);
    boolean numericB = isNumeric(b);
    if (numericA && numericB) {
      // Numeric identifiers have no leading zeros, so a longer one is larger.
      return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
    }
    if (numericA != numericB) {
      return numericA ? -1 : 1;
    }
    return a.compareTo(b);
  }

  private static boolean isNumeric(String identifier) {
    for (int i = 0; i < identifier.length(); i++) {
      if (!Character.isDigit(identifier.charAt(i))) {
        return false;
      }
    }
    return !identifier.isEmpty();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder().append(major).append('.').append(minor).append('.');
    s.append(patch);
    if (!preRelease.isEmpty()) {
      s.append('-').append(String.join(".", new ArrayList<>(preRelease)));
    }
    return s.toString();
  }
}
