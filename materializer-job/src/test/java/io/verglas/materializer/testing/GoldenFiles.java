package io.verglas.materializer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Byte formats that are checkpointed are pinned by golden files in {@code golden/}: a format
 * change that breaks restoring old checkpoints shows up as a diff. Regenerate deliberately with
 * {@code -Dverglas.golden.update=true} (and add a new version instead of changing an old one).
 */
public final class GoldenFiles {
  private GoldenFiles() {}

  public static byte[] read(String name) throws IOException {
    try (InputStream in = GoldenFiles.class.getResourceAsStream("/golden/" + name)) {
      if (in == null) {
        throw new AssertionError("Missing golden file golden/" + name
            + " (generate it with -Dverglas.golden.update=true)");
      }
      return in.readAllBytes();
    }
  }

  public static void assertMatches(String name, byte[] actual) throws IOException {
    if (Boolean.getBoolean("verglas.golden.update")) {
      Path file = Path.of("src/test/resources/golden", name);
      Files.createDirectories(file.getParent());
      Files.write(file, actual);
      return;
    }
    assertThat(actual).as("bytes of golden/%s", name).isEqualTo(read(name));
  }
}
