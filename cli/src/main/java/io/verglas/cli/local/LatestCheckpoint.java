package io.verglas.cli.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the newest complete retained checkpoint ({@code <dir>/<job id>/chk-N/_metadata}) so the
 * local materializer resumes with its key index instead of starting empty.
 */
final class LatestCheckpoint {
  private LatestCheckpoint() {}

  static Optional<Path> in(Path checkpointDir) {
    if (!Files.isDirectory(checkpointDir)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.find(checkpointDir, 3,
        (path, attrs) -> attrs.isRegularFile() && path.getFileName().toString().equals("_metadata")
            && path.getParent().getFileName().toString().startsWith("chk-"))) {
      return files.max(Comparator.comparing(LatestCheckpoint::modified)).map(Path::getParent);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot look for checkpoints in " + checkpointDir, e);
    }
  }

  private static long modified(Path path) {
    try {
      return Files.getLastModifiedTime(path).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }
}
