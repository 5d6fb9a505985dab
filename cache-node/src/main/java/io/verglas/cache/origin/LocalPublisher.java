package io.verglas.cache.origin;

import io.verglas.cache.origin.OriginException.Reason;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Makes a fsynced temp file the current version of a key, or deletes a key, under the key's lock
 * so that the precondition check and the rename are one atomic step.
 *
 * <p>Order of a publish: sidecar renamed into place first, content second. In between, readers
 * see the new sidecar with the old content; the stamps differ (new inode), so the sidecar is
 * ignored, never misapplied.
 */
final class LocalPublisher {
  private final LocalLayout layout;
  private final LocalMetadata metadata;
  private final KeyLocks locks = new KeyLocks();

  LocalPublisher(LocalLayout layout, LocalMetadata metadata) {
    this.layout = layout;
    this.metadata = metadata;
  }

  PutResult publish(String bucket, String key, Path temp, String etag, WriteOptions options)
      throws IOException {
    return publish(bucket, key, temp, etag, options, List.of());
  }

  /** As {@link #publish(String, String, Path, String, WriteOptions)}, recording part sizes. */
  PutResult publish(String bucket, String key, Path temp, String etag, WriteOptions options,
      List<Long> partSizes) throws IOException {
    Path bucketDir = layout.bucketDir(bucket);
    Path target = layout.objectPath(bucket, key);
    Path sidecar = layout.sidecarPath(bucket, key);
    Path sidecarTemp = null;
    try {
      FileStamp stamp = FileStamp.read(temp);
      ObjectMeta meta = new ObjectMeta(etag, stamp.size(), stamp.lastModified(),
          options.contentType(), options.userMetadata(), options.contentHeaders());
      sidecarTemp = DurableFiles.writeBytesTemp(layout, LocalMetadata.encodeSidecar(stamp, meta, partSizes));
      ReentrantLock lock = locks.lockFor(bucket, key);
      lock.lock();
      try {
        requireBucket(bucket, bucketDir);
        checkCondition(bucket, key, target, sidecar, options.condition());
        checkNoClash(bucketDir, target, key);
        DurableFiles.moveIntoPlace(sidecarTemp, sidecar, layout.meta);
        sidecarTemp = null;
        try {
          DurableFiles.moveIntoPlace(temp, target, bucketDir);
        } catch (FileSystemException e) {
          checkNoClash(bucketDir, target, key);
          throw e;
        }
        metadata.forget(target); // memoized when read: a file written and never read costs no heap
      } finally {
        lock.unlock();
      }
      return new PutResult(etag, stamp.lastModified());
    } finally {
      if (sidecarTemp != null) {
        Files.deleteIfExists(sidecarTemp);
      }
      Files.deleteIfExists(temp);
    }
  }

  void delete(String bucket, String key, WriteCondition condition) throws IOException {
    Path bucketDir = layout.bucketDir(bucket);
    Path target = layout.objectPath(bucket, key);
    Path sidecar = layout.sidecarPath(bucket, key);
    if (condition.mustNotExist()) {
      throw new OriginException(Reason.NOT_IMPLEMENTED,
          "Cannot delete with If-None-Match: only If-Match is supported for DeleteObject");
    }
    ReentrantLock lock = locks.lockFor(bucket, key);
    lock.lock();
    try {
      requireBucket(bucket, bucketDir);
      checkCondition(bucket, key, target, sidecar, condition);
      if (FileStamp.read(target) == null) {
        return;
      }
      Files.deleteIfExists(target);
      Files.deleteIfExists(sidecar);
      metadata.forget(target);
      try {
        DurableFiles.fsyncDirectory(target.getParent());
      } catch (NoSuchFileException e) {
        // A concurrent delete of a sibling already removed the emptied directory.
      }
      DurableFiles.deleteEmptyParents(target, bucketDir);
    } finally {
      lock.unlock();
    }
  }

  private void checkCondition(String bucket, String key, Path target, Path sidecar,
      WriteCondition condition) throws IOException {
    if (condition.isNone()) {
      return;
    }
    if (condition.mustNotExist()) {
      if (FileStamp.read(target) != null) {
        throw new OriginException(Reason.PRECONDITION_FAILED,
            "At least one of the pre-conditions you specified did not hold: " + bucket + "/" + key
                + " exists (If-None-Match: *)");
      }
      return;
    }
    ObjectMeta current = metadata.current(target, sidecar);
    if (current == null) {
      throw new OriginException(Reason.NO_SUCH_KEY,
          "The specified key does not exist: " + key + " (If-Match " + condition.ifMatchEtag() + ")");
    }
    if (!ETags.matches(current.etag(), condition.ifMatchEtag())) {
      throw new OriginException(Reason.PRECONDITION_FAILED,
          "At least one of the pre-conditions you specified did not hold: If-Match "
              + condition.ifMatchEtag() + " but the current ETag of " + key + " is "
              + current.etag());
    }
  }

  static void requireBucket(String bucket, Path bucketDir) {
    if (!Files.isDirectory(bucketDir)) {
      throw new OriginException(Reason.NO_SUCH_BUCKET, "The specified bucket does not exist: " + bucket);
    }
  }

  /** Keys map to paths, so "a/b" and "a/b/c" cannot both exist: refuse clearly instead of EEXIST. */
  private static void checkNoClash(Path bucketDir, Path target, String key) throws IOException {
    if (Files.isDirectory(target)) {
      throw new OriginException(Reason.INVALID_KEY, "Cannot put key '" + key + "': keys under '"
          + key + "/' exist, and the local directory origin cannot hold a key and keys under it");
    }
    for (Path p = target.getParent(); p != null && !p.equals(bucketDir); p = p.getParent()) {
      if (DurableFiles.existsAsFile(p)) {
        throw new OriginException(Reason.INVALID_KEY, "Cannot put key '" + key + "': key '"
            + LocalLayout.keyOf(bucketDir, p) + "' exists, and the local directory origin cannot"
            + " hold a key and keys under it");
      }
    }
  }
}
