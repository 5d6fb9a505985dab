package io.verglas.cache.awareness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watcher's state file in its state directory, replaced atomically: written to a temp file
 * and fsynced, renamed over the old one, then the directory fsynced, so a crash leaves the old
 * state or the new one. A file that cannot be read is moved aside (kept for inspection) and the
 * watcher starts as if it had none: it loses its position, never data.
 */
final class WatcherStateStore {
  static final String FILE_NAME = "catalog-watcher.json";
  private static final Logger LOG = LoggerFactory.getLogger(WatcherStateStore.class);

  private final Path directory;
  private final Path file;

  WatcherStateStore(Path directory) {
    this.directory = directory;
    this.file = directory.resolve(FILE_NAME);
  }

  Optional<WatcherState> load() {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read watcher state " + file, e);
    }
    try {
      return Optional.of(WatcherStateParser.fromJson(json));
    } catch (IllegalArgumentException e) {
      Path aside = file.resolveSibling(FILE_NAME + ".unreadable-" + System.currentTimeMillis());
      LOG.warn("{} ({}); moved it to {} and starting at the feed's end", e.getMessage(), file, aside);
      try {
        Files.move(file, aside);
      } catch (IOException moveFailed) {
        throw new UncheckedIOException("Cannot move unreadable watcher state " + file + " aside", moveFailed);
      }
      return Optional.empty();
    }
  }

  void save(WatcherState state) throws IOException {
    Files.createDirectories(directory);
    Path tmp = directory.resolve(FILE_NAME + ".tmp");
    byte[] bytes = WatcherStateParser.toJson(state).getBytes(StandardCharsets.UTF_8);
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        out.write(buffer);
      }
      out.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
