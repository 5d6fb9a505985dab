package io.verglas.events.publish;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One outbox directory, held by one publisher at a time through an OS file lock on its
 * {@code lock} file. The OS drops the lock when the process dies, so a crashed publisher's slot
 * is free for the next one, which finds the outbox as the crash left it.
 *
 * <p>Within one JVM the slots held are also kept in a set, checked before the file is even
 * opened: file locks belong to the process, and closing any channel of a locked file may release
 * the process's lock on it, so a second claim in the same JVM must not open the file at all.
 */
final class OutboxSlot implements Closeable {
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path dir;
  private final FileChannel channel;
  private final FileLock lock;
  private boolean closed;

  private OutboxSlot(Path dir, FileChannel channel, FileLock lock) {
    this.dir = dir;
    this.channel = channel;
    this.lock = lock;
  }

  /** Holds {@code dir} (creating it) unless another publisher, here or elsewhere, holds it. */
  static Optional<OutboxSlot> tryClaim(Path dir) throws IOException {
    Path key = dir.toAbsolutePath().normalize();
    if (!HELD.add(key)) {
      return Optional.empty();
    }
    try {
      Files.createDirectories(key);
      FileChannel channel = FileChannel.open(key.resolve("lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock = tryLock(channel);
      if (lock == null) {
        channel.close();
        HELD.remove(key);
        return Optional.empty();
      }
      return Optional.of(new OutboxSlot(key, channel, lock));
    } catch (IOException | RuntimeException e) {
      HELD.remove(key);
      throw e;
    }
  }

  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      return null; // held in this JVM through a path the set does not know (a symlink)
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  Path dir() {
    return dir;
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (channel) {
      lock.release();
    } finally {
      HELD.remove(dir);
    }
  }

  @Override
  public String toString() {
    return dir.toString();
  }
}
