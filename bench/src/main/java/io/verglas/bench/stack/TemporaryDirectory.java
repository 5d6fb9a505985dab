package io.verglas.bench.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A directory a benchmark writes into, deleted with everything in it on {@link #close()}. */
public final class TemporaryDirectory implements AutoCloseable {
  private final Path path;

  private TemporaryDirectory(Path path) {
    this.path = path;
  }

  public static TemporaryDirectory create(String prefix) throws IOException {
    return new TemporaryDirectory(Files.createTempDirectory(prefix));
  }

  public Path path() {
    return path;
  }

  @Override
  public void close() {
    deleteRecursively(path);
  }

  /** Deletes {@code dir} and everything below it. */
  public static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + dir, e);
    }
  }
}
