package io.verglas.cli.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's hold on its data directory while it runs: the directory exists (created
 * owner-only), no other stack uses it, and its {@code tmp/} is empty at start and gone at stop
 * (see {@link LocalConfig#tmpDir()}).
 *
 * <p>Design. {@code tmp/} takes everything the stack writes only while it runs: the working,
 * I/O and blob directories of both Flink MiniClusters, the key index's RocksDB instance (its
 * durable copy is the checkpoint under {@code checkpoints/}, which a start restores from),
 * staging files of S3 uploads and spooled S3 request bodies. None of it is read by a later start,
 * so {@link #open} deletes what a killed process left there, and {@link #close} deletes it once
 * every component has stopped (the stack closes this last). Only a {@code tmp/} that holds the
 * stack's marker file is deleted: one without it is refused, since it is someone else's.
 *
 * <p>Ownership. A lock on {@code lock} in the directory is held from {@link #open} to
 * {@link #close}: a second stack on the same directory fails before it deletes the running
 * one's {@code tmp/} (or claims its WAL stream). The lock is the operating system's, so it goes
 * with the process however that ends.
 *
 * <p>Permissions. A data directory this class creates is {@code rwx------}: the table data, the
 * catalog and the change feed inside it are the owner's. An existing directory keeps its mode
 * (an operator may share it with a group on purpose); if others can read or enter it, a warning
 * says so. The files with secrets are owner-only either way.
 */
final class DataDirectory implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DataDirectory.class);
  /** Marks a temporary directory as the stack's own, so that only such a one is deleted. */
  static final String MARKER = ".verglas-tmp";
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OPEN_TO_OTHERS = EnumSet.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE);

  private final Path dir;
  private final Path tmp;
  private final FileChannel lockFile;
  private final FileLock lock;

  private DataDirectory(Path dir, Path tmp, FileChannel lockFile, FileLock lock) {
    this.dir = dir;
    this.tmp = tmp;
    this.lockFile = lockFile;
    this.lock = lock;
  }

  /** Creates or checks {@code dir}, locks it and empties {@code tmp}, its temporary files. */
  static DataDirectory open(Path dir, Path tmp) {
    try {
      createOrCheck(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the data directory " + dir + ": " + e, e);
    }
    DataDirectory opened = lock(dir, tmp);
    try {
      checkMadeByUs(tmp);
      deleteRecursively(tmp);
      Files.createDirectories(tmp);
      Files.createFile(tmp.resolve(MARKER));
      return opened;
    } catch (IOException e) {
      opened.release();
      throw new UncheckedIOException("Cannot empty the temporary directory " + tmp + ": " + e, e);
    } catch (RuntimeException e) {
      opened.release();
      throw e;
    }
  }

  /** A {@code tmp} the stack did not make is someone's data (a data directory given as "."). */
  private static void checkMadeByUs(Path tmp) {
    if (Files.exists(tmp, LinkOption.NOFOLLOW_LINKS)
        && !Files.exists(tmp.resolve(MARKER), LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalStateException("Cannot use " + tmp + " for temporary files: it exists"
          + " and was not made by Verglas (it lacks " + MARKER + "), and the stack deletes it at"
          + " start and stop; move it away or choose another data directory");
    }
  }

  /** Deletes the temporary files and releases the lock; the stack closes this last. */
  @Override
  public void close() {
    try {
      deleteRecursively(tmp);
    } catch (IOException e) {
      LOG.warn("Cannot delete the temporary files in {}: {}", tmp, e.toString());
    } finally {
      release();
    }
  }

  private void release() {
    try {
      if (lock.isValid()) {
        lock.release();
      }
      lockFile.close();
    } catch (IOException e) {
      LOG.warn("Cannot release the lock on {}: {}", dir, e.toString());
    }
  }

  private static void createOrCheck(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      warnIfOpenToOthers(dir);
      return;
    }
    Path parent = dir.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (UnsupportedOperationException notPosix) {
      Files.createDirectory(dir);
    }
  }

  private static void warnIfOpenToOthers(Path dir) throws IOException {
    Set<PosixFilePermission> mode;
    try {
      mode = Files.getPosixFilePermissions(dir);
    } catch (UnsupportedOperationException notPosix) {
      return;
    }
    if (mode.stream().anyMatch(OPEN_TO_OTHERS::contains)) {
      LOG.warn("The data directory {} is open to other users ({}): they can read the table data,"
          + " the catalog and the change feed in it (credentials.json and endpoints.json stay"
          + " owner-only). Run chmod 700 {} unless that is intended.",
          dir, PosixFilePermissions.toString(mode), dir);
    }
  }

  private static DataDirectory lock(Path dir, Path tmp) {
    Path path = dir.resolve("lock");
    FileChannel channel = null;
    try {
      channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock != null) {
        return new DataDirectory(dir, tmp, channel, lock);
      }
    } catch (OverlappingFileLockException heldInThisProcess) {
      // another stack of this JVM holds it: the same answer as for another process
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("Cannot lock the data directory " + dir + ": " + e, e);
    }
    closeQuietly(channel);
    throw new IllegalStateException("Cannot use the data directory " + dir
        + ": another Verglas stack is running on it (it holds " + path + ")");
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException ignored) {
      // nothing was locked through it
    }
  }

  /** Deletes {@code root} and what is under it; links are removed, never followed. */
  static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
        if (e != null && !(e instanceof NoSuchFileException)) {
          throw e;
        }
        Files.deleteIfExists(directory);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
