package io.verglas.cache.compat;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The origin contract of {@link LocalDirectoryOrigin}. */
class LocalOriginContractTest extends OriginContract {
  private Path dir;

  @Override
  protected Origin newOrigin() throws Exception {
    dir = Files.createTempDirectory("contract-local-");
    return new LocalDirectoryOrigin(dir);
  }

  @Override
  protected void stopOrigin() throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
