package io.verglas.cache.origin;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Crash-safe file primitives: content is written to a temp file and fsynced, then renamed over
 * the target (rename(2) replaces atomically), then the directory is fsynced so the rename itself
 * survives a crash. A reader therefore sees the old file or the new one, never a partial one.
 */
final class DurableFiles {
  private static final int COPY_BUFFER = 256 * 1024;
  private static final int MOVE_ATTEMPTS = 8;

  private DurableFiles() {}

  /** A fsynced temp file with the MD5 and length of what was written. */
  record Written(Path path, long length, byte[] md5) {}

  static Written writeTemp(LocalLayout layout, InputStream in) throws IOException {
    Path tmp = layout.newTempFile(".data");
    MessageDigest md5 = ETags.newMd5();
    long length = 0;
    boolean ok = false;
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      byte[] buffer = new byte[COPY_BUFFER];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        md5.update(buffer, 0, n);
        ByteBuffer bb = ByteBuffer.wrap(buffer, 0, n);
        while (bb.hasRemaining()) {
          out.write(bb);
        }
        length += n;
      }
      out.force(true);
      ok = true;
      return new Written(tmp, length, md5.digest());
    } finally {
      if (!ok) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  static Path writeBytesTemp(LocalLayout layout, byte[] bytes) throws IOException {
    Path tmp = layout.newTempFile(".meta");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer bb = ByteBuffer.wrap(bytes);
      while (bb.hasRemaining()) {
        out.write(bb);
      }
      out.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    return tmp;
  }

  /**
   * Renames {@code source} over {@code target}, creating missing parents (up to {@code base}).
   * A concurrent delete may remove an empty parent between creation and rename; then it retries.
   */
  static void moveIntoPlace(Path source, Path target, Path base) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        createDirectories(base, target.getParent());
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        // Not empty any more, so no concurrent delete can remove the directory now.
        fsyncDirectory(target.getParent());
        return;
      } catch (NoSuchFileException e) {
        if (attempt >= MOVE_ATTEMPTS || !Files.exists(source)) {
          throw e;
        }
      }
    }
  }

  /** Creates {@code dir} and missing parents below {@code base}, fsyncing each new entry's parent. */
  static void createDirectories(Path base, Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    if (!dir.startsWith(base) || dir.equals(base)) {
      Files.createDirectories(dir);
      return;
    }
    createDirectories(base, dir.getParent());
    try {
      Files.createDirectory(dir);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      if (existsAsFile(dir)) {
        throw e;
      }
      if (!Files.isDirectory(dir)) {
        // A concurrent delete removed it again (it was an empty parent): let the caller retry.
        throw new NoSuchFileException(dir.toString());
      }
      return;
    }
    fsyncDirectory(dir.getParent());
  }

  /**
   * Whether {@code path} exists and is not a directory, decided by one look: a directory that a
   * concurrent delete prunes between two looks must not pass for a file.
   */
  static boolean existsAsFile(Path path) throws IOException {
    try {
      return !Files.readAttributes(path, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS).isDirectory();
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Removes now-empty directories from {@code file}'s parent up to (excluding) {@code stop}. */
  static void deleteEmptyParents(Path file, Path stop) {
    Path dir = file.getParent();
    while (dir != null && dir.startsWith(stop) && !dir.equals(stop)) {
      try {
        Files.delete(dir);
      } catch (DirectoryNotEmptyException | NoSuchFileException e) {
        return;
      } catch (IOException e) {
        return;
      }
      dir = dir.getParent();
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
