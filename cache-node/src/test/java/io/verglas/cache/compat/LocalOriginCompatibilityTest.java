package io.verglas.cache.compat;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The compatibility spec with the local directory origin. */
class LocalOriginCompatibilityTest extends S3CompatibilitySpec {
  private Path dir;

  @Override
  protected Origin newOrigin() throws IOException {
    dir = Files.createTempDirectory("compat-local-");
    return new LocalDirectoryOrigin(dir);
  }

  @Override
  protected void stopOrigin() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
