package io.verglas.cache.awareness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One file of the awareness state directory, replaced atomically: written to a temp file and
 * fsynced, renamed over the old one, then the directory fsynced, so a crash leaves the old
 * content or the new one. A file its reader cannot make sense of is moved aside (kept for
 * inspection) rather than deleted.
 */
final class StateFile {
  private final Path directory;
  private final Path file;

  StateFile(Path directory, String name) {
    this.directory = directory;
    this.file = directory.resolve(name);
  }

  Path path() {
    return file;
  }

  /** The file's bytes, or empty if there is no file. */
  Optional<byte[]> read() throws IOException {
    try {
      return Optional.of(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** The file's size in bytes, or -1 if there is no file. */
  long size() throws IOException {
    try {
      return Files.size(file);
    } catch (NoSuchFileException e) {
      return -1;
    }
  }

  void replace(byte[] bytes) throws IOException {
    Files.createDirectories(directory);
    Path tmp = directory.resolve(file.getFileName() + ".tmp");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
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

  /** Renames the file to {@code <name>.unreadable-<millis>} beside it; returns the new path. */
  Path moveAside() throws IOException {
    Path aside = file.resolveSibling(file.getFileName() + ".unreadable-" + System.currentTimeMillis());
    Files.move(file, aside);
    return aside;
  }
}
