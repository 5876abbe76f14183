package dev.bothy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The house rules on text: no en or em dash and no home-directory path in any text file. */
class TextRulesTest {
  private static final Set<String> SKIPPED_DIRECTORIES =
      Set.of(".git", "target", "bothy-data", ".idea", "node_modules");
  private static final Set<String> BINARY_SUFFIXES =
      Set.of(".jar", ".class", ".png", ".jpg", ".gif", ".ico", ".txz", ".gz", ".zip", ".exec");

  private static Path projectDir() {
    return Path.of(System.getProperty("bothy.test.projectDir", ".")).toAbsolutePath().normalize();
  }

  @Test
  void no_text_file_contains_an_en_dash_or_an_em_dash() throws IOException {
    List<String> offenders = new ArrayList<>();
    String enDash = String.valueOf((char) 0x2013);
    String emDash = String.valueOf((char) 0x2014);
    for (Path file : textFiles()) {
      String text = read(file);
      if (text != null && (text.contains(enDash) || text.contains(emDash))) {
        offenders.add(projectDir().relativize(file).toString());
      }
    }

    assertThat(offenders).as("files with an en or em dash (use a hyphen)").isEmpty();
  }

  @Test
  void no_text_file_names_a_home_directory() throws IOException {
    List<String> offenders = new ArrayList<>();
    List<String> homes = List.of("/" + "home/", "/" + "root/", "/" + "Users/");
    for (Path file : textFiles()) {
      String text = read(file);
      if (text != null && homes.stream().anyMatch(text::contains)) {
        offenders.add(projectDir().relativize(file).toString());
      }
    }

    assertThat(offenders).as("files naming a home directory").isEmpty();
  }

  @Test
  void the_scan_sees_the_project_files() throws IOException {
    assertThat(textFiles())
        .extracting(p -> projectDir().relativize(p).toString())
        .contains("README.md", "pom.xml", "CHANGELOG.md");
  }

  private static List<Path> textFiles() throws IOException {
    Path root = projectDir();
    try (Stream<Path> paths = Files.walk(root)) {
      return paths
          .filter(p -> root.relativize(p).getNameCount() > 0)
          .filter(
              p -> {
                for (Path part : root.relativize(p)) {
                  if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                    return false;
                  }
                }
                return true;
              })
          .filter(Files::isRegularFile)
          .filter(
              p -> BINARY_SUFFIXES.stream().noneMatch(s -> p.getFileName().toString().endsWith(s)))
          .toList();
    }
  }

  private static String read(Path file) throws IOException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)))
          .toString();
    } catch (CharacterCodingException binary) {
      return null;
    }
  }
}
