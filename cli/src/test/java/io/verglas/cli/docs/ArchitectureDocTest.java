package io.verglas.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The "Where to find what" table of {@code docs/architecture.md} names modules, packages and
 * classes that exist: a rename or move that forgets the page fails here.
 */
class ArchitectureDocTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");
  private static final Pattern CLASS = Pattern.compile("[A-Z][A-Za-z0-9]+");

  @Test
  void everyModulePackageAndClassTheTableNamesExists() throws IOException {
    List<String> rows = tableRows();
    assertThat(rows).hasSizeGreaterThan(10);
    for (String row : rows) {
      String[] cells = row.split("\\|");
      String module = cells[2].trim();
      Path sources = ROOT.resolve(module).resolve("src/main/java");
      assertThat(sources).as("module of row %s", row).isDirectory();
      for (String pkg : code(cells[3])) {
        if (pkg.startsWith("io.verglas.")) {
          assertThat(sources.resolve(pkg.replace('.', '/'))).as("package of row %s", row).isDirectory();
        }
      }
      for (String name : code(cells[4])) {
        if (CLASS.matcher(name).matches()) {
          assertThat(exists(sources, name + ".java")).as("class %s of row %s", name, row).isTrue();
        }
      }
    }
  }

  private static List<String> tableRows() throws IOException {
    List<String> lines = Files.readAllLines(ROOT.resolve("docs/architecture.md"));
    int start = lines.indexOf("## Where to find what");
    assertThat(start).as("the section exists").isNotNegative();
    List<String> rows = new ArrayList<>();
    for (String line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (line.startsWith("| ") && !line.startsWith("| Role")) {
        rows.add(line);
      }
    }
    return rows;
  }

  private static List<String> code(String cell) {
    List<String> names = new ArrayList<>();
    Matcher m = CODE.matcher(cell);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  private static boolean exists(Path sources, String fileName) throws IOException {
    try (Stream<Path> files = Files.walk(sources)) {
      return files.anyMatch(p -> p.getFileName().toString().equals(fileName));
    }
  }
}
