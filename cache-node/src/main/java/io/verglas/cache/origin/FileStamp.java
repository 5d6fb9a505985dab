package io.verglas.cache.origin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;

/**
 * Identifies one version of a local file: size, modification time in nanoseconds and inode.
 *
 * <p>The inode matters: writes create a new file and rename it over the old one, so a new version
 * always has a new inode even when size and (coarse, kernel-tick) mtime coincide. Without it a
 * sidecar of one version could be paired with the content of another. Where the file system has
 * no inode ({@code unix:ino} unsupported) the inode is -1 and size + mtime must do.
 */
record FileStamp(long size, long mtimeNanos, long inode) {
  private static volatile boolean unixView = true;

  Instant lastModified() {
    return Instant.ofEpochSecond(0, mtimeNanos);
  }

  /** The stamp of a regular file, or null if there is none at the path (or it is not regular). */
  static FileStamp read(Path path) throws IOException {
    try {
      if (unixView) {
        try {
          Map<String, Object> attrs = Files.readAttributes(
              path, "unix:size,lastModifiedTime,ino,isRegularFile", LinkOption.NOFOLLOW_LINKS);
          if (!Boolean.TRUE.equals(attrs.get("isRegularFile"))) {
            return null;
          }
          return new FileStamp(
              (Long) attrs.get("size"),
              nanos((FileTime) attrs.get("lastModifiedTime")),
              (Long) attrs.get("ino"));
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
          unixView = false;
        }
      }
      BasicFileAttributes basic =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!basic.isRegularFile()) {
        return null;
      }
      return new FileStamp(basic.size(), nanos(basic.lastModifiedTime()), -1);
    } catch (NoSuchFileException e) {
      return null;
    } catch (java.nio.file.FileSystemException e) {
      // ENOTDIR: a parent path element is a file, so there is no object here either.
      if (e.getMessage() != null && e.getMessage().contains("Not a directory")) {
        return null;
      }
      throw e;
    }
  }

  private static long nanos(FileTime time) {
    Instant i = time.toInstant();
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
  }
}
