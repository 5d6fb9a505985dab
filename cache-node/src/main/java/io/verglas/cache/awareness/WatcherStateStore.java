package io.verglas.cache.awareness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watcher's state file in its state directory, replaced atomically ({@link StateFile}). A
 * file that cannot be read is moved aside (kept for inspection) and the watcher starts as if it
 * had none: it loses its position, never data.
 */
final class WatcherStateStore {
  static final String FILE_NAME = "catalog-watcher.json";
  private static final Logger LOG = LoggerFactory.getLogger(WatcherStateStore.class);

  private final StateFile file;

  WatcherStateStore(Path directory) {
    this.file = new StateFile(directory, FILE_NAME);
  }

  Optional<WatcherState> load() {
    Optional<byte[]> bytes;
    try {
      bytes = file.read();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read watcher state " + file.path(), e);
    }
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(WatcherStateParser.fromJson(new String(bytes.get(), StandardCharsets.UTF_8)));
    } catch (IllegalArgumentException e) {
      try {
        Path aside = file.moveAside();
        LOG.warn("{} ({}); moved it to {} and starting at the feed's end", e.getMessage(), file.path(), aside);
      } catch (IOException moveFailed) {
        throw new UncheckedIOException("Cannot move unreadable watcher state " + file.path() + " aside", moveFailed);
      }
      return Optional.empty();
    }
  }

  void save(WatcherState state) throws IOException {
    file.replace(WatcherStateParser.toJson(state).getBytes(StandardCharsets.UTF_8));
  }
}
