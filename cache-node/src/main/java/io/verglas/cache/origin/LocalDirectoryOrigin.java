package io.verglas.cache.origin;

import io.verglas.cache.origin.OriginException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * An {@link Origin} over a local directory: bucket = first-level directory, key = relative path.
 * It is the embedded default and the test origin, so it keeps S3's guarantees where they matter
 * for the cache: writes are atomic (temp file, fsync, rename, directory fsync), conditional writes
 * are atomic per key, ETags are exact (MD5, or the multipart form), and a range read never mixes
 * versions (see {@link LocalMetadata}).
 *
 * <p>Blocking file I/O runs on the origin's own thread pool; callers get futures.
 *
 * <p>Keys map to paths segment by segment, with an escape for empty segments, so directory
 * markers ({@code logs/}) live beside the keys under them (see {@link LocalLayout}). Limits, each
 * refused with a clear error: {@code .}/{@code ..} segments, a key that is also a "directory" of
 * other keys without a trailing {@code /} ({@code a} beside {@code a/b}), and versions other
 * than {@code "null"}. Files placed in the directory by other means are served, with the MD5 of their
 * content as ETag and default metadata. Symbolic links are not objects (never listed or served
 * as the last path element); a symlinked directory placed inside a bucket by hand is followed,
 * so keep the root free of links you do not want served.
 */
public final class LocalDirectoryOrigin implements Origin {
  private static final int DEFAULT_THREADS = 16;

  private final LocalLayout layout;
  private final LocalMetadata metadata = new LocalMetadata();
  private final LocalPublisher publisher;
  private final LocalMultipart multipart;
  private final ExecutorService executor;

  public LocalDirectoryOrigin(Path root) {
    this(root, DEFAULT_THREADS);
  }

  public LocalDirectoryOrigin(Path root, int ioThreads) {
    if (ioThreads < 1) {
      throw new IllegalArgumentException("Invalid ioThreads: " + ioThreads + " (must be >= 1)");
    }
    this.layout = new LocalLayout(root);
    this.publisher = new LocalPublisher(layout, metadata);
    this.multipart = new LocalMultipart(layout, metadata, publisher);
    this.executor = Executors.newFixedThreadPool(ioThreads, daemonThreads());
  }

  public Path root() {
    return layout.root;
  }

  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    return async(() -> {
      List<BucketInfo> buckets = new ArrayList<>();
      try (DirectoryStream<Path> stream = Files.newDirectoryStream(layout.root)) {
        for (Path p : stream) {
          String name = p.getFileName().toString();
          if (LocalLayout.isValidBucketName(name) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            BasicFileAttributes attrs = Files.readAttributes(p, BasicFileAttributes.class);
            buckets.add(new BucketInfo(name, attrs.creationTime().toInstant()));
          }
        }
      }
      buckets.sort(Comparator.comparing(BucketInfo::name));
      return buckets;
    });
  }

  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    return async(() -> LocalLayout.isValidBucketName(bucket)
        && Files.isDirectory(layout.bucketDir(bucket), LinkOption.NOFOLLOW_LINKS));
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    return async(() -> {
      Path dir = layout.bucketDir(bucket);
      try {
        Files.createDirectory(dir);
      } catch (FileAlreadyExistsException e) {
        throw new OriginException(Reason.BUCKET_ALREADY_OWNED,
            "Your previous request to create the named bucket succeeded and you already own it: "
                + bucket);
      }
      DurableFiles.fsyncDirectory(layout.root);
      return null;
    });
  }

  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    return async(() -> {
      Path dir = layout.bucketDir(bucket);
      LocalPublisher.requireBucket(bucket, dir);
      try (Stream<Path> files = Files.walk(dir)) {
        if (files.anyMatch(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))) {
          throw new OriginException(Reason.BUCKET_NOT_EMPTY,
              "The bucket you tried to delete is not empty: " + bucket);
        }
      }
      DurableFiles.deleteRecursively(dir);
      DurableFiles.deleteRecursively(layout.bucketMetaDir(bucket));
      DurableFiles.fsyncDirectory(layout.root);
      return null;
    });
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    return async(() -> {
      Path file = existingBucketPath(bucket, key);
      ObjectMeta meta = metadata.current(file, layout.sidecarPath(bucket, key));
      if (meta == null) {
        throw noSuchKey(key);
      }
      return meta;
    });
  }

  @Override
  public CompletableFuture<byte[]> readRange(
      String bucket, String key, String expectedEtag, long offset, int length) {
    return async(() -> {
      if (offset < 0 || length < 0) {
        throw new OriginException(Reason.INVALID_ARGUMENT,
            "Cannot read " + key + ": invalid range offset " + offset + " length " + length);
      }
      Path file = existingBucketPath(bucket, key);
      try (LocalMetadata.Opened opened = metadata.open(file, layout.sidecarPath(bucket, key))) {
        if (opened == null) {
          throw noSuchKey(key);
        }
        if (!ETags.matches(opened.meta().etag(), expectedEtag)) {
          throw new OriginException(Reason.PRECONDITION_FAILED,
              "Cannot read " + bucket + "/" + key + " at version " + expectedEtag
                  + ": the current ETag is " + opened.meta().etag());
        }
        if (offset + length > opened.stamp().size()) {
          throw new OriginException(Reason.INVALID_ARGUMENT,
              "Cannot read " + key + " bytes " + offset + "+" + length + ": the object has "
                  + opened.stamp().size() + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
          int n = opened.channel().read(buffer, offset + buffer.position());
          if (n < 0) {
            throw new IOException("Cannot read " + file + ": unexpected end at "
                + (offset + buffer.position()));
          }
        }
        return buffer.array();
      }
    });
  }

  @Override
  public CompletableFuture<PartRange> partRange(String bucket, String key, String etag, int partNumber) {
    return async(() -> {
      Path file = existingBucketPath(bucket, key);
      List<Long> sizes = metadata.partSizes(file, layout.sidecarPath(bucket, key), etag);
      if (sizes == null) {
        throw new OriginException(Reason.PRECONDITION_FAILED,
            "Cannot read a part of " + bucket + "/" + key + " at version " + etag + ": it changed");
      }
      if (sizes.isEmpty()) {
        // Completed before part sizes were recorded: one part, the whole object, is still a
        // correct answer for a client that reads by part (it then reads one part).
        long size = metadata.current(file, layout.sidecarPath(bucket, key)).size();
        return partNumber == 1 && size > 0 ? new PartRange(1, 0, size - 1) : PartRange.beyond(1);
      }
      if (partNumber > sizes.size()) {
        return PartRange.beyond(sizes.size());
      }
      long start = 0;
      for (int i = 0; i < partNumber - 1; i++) {
        start += sizes.get(i);
      }
      return new PartRange(sizes.size(), start, start + sizes.get(partNumber - 1) - 1);
    });
  }

  @Override
  public CompletableFuture<PutResult> put(
      String bucket, String key, ObjectBody body, WriteOptions options) {
    return async(() -> {
      existingBucketPath(bucket, key);
      DurableFiles.Written written;
      try (InputStream in = body.openStream()) {
        written = DurableFiles.writeTemp(layout, in);
      }
      if (written.length() != body.length()) {
        Files.deleteIfExists(written.path());
        throw new IOException("Cannot put " + key + ": the body yielded " + written.length()
            + " bytes, expected " + body.length());
      }
      return publisher.publish(bucket, key, written.path(), ETags.ofMd5(written.md5()), options);
    });
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    return async(() -> {
      publisher.delete(bucket, key, condition);
      return null;
    });
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    return async(() -> {
      if (request.sourceVersionId() != null && !NULL_VERSION.equals(request.sourceVersionId())) {
        throw new OriginException(Reason.INVALID_ARGUMENT,
            "Invalid version id specified: " + request.sourceVersionId()
                + " (this origin keeps only the current version, version id \"null\")");
      }
      Path source = existingBucketPath(request.sourceBucket(), request.sourceKey());
      existingBucketPath(request.bucket(), request.key());
      DurableFiles.Written written;
      WriteOptions options;
      try (LocalMetadata.Opened opened = metadata.open(
          source, layout.sidecarPath(request.sourceBucket(), request.sourceKey()))) {
        if (opened == null) {
          throw noSuchKey(request.sourceKey());
        }
        if (request.expectedSourceEtag() != null
            && !ETags.matches(opened.meta().etag(), request.expectedSourceEtag())) {
          throw new OriginException(Reason.PRECONDITION_FAILED,
              "At least one of the pre-conditions you specified did not hold: copy source "
                  + request.sourceKey() + " has ETag " + opened.meta().etag());
        }
        ObjectMeta src = opened.meta();
        options = request.replacement() != null
            ? request.replacement().withCondition(request.targetCondition())
            : new WriteOptions(src.contentType(), src.userMetadata(), src.contentHeaders(),
                request.targetCondition());
        written = DurableFiles.writeTemp(layout, Channels.newInputStream(opened.channel()));
      }
      return publisher.publish(request.bucket(), request.key(), written.path(),
          ETags.ofMd5(written.md5()), options);
    });
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    return async(() -> {
      Path bucketDir = layout.bucketDir(request.bucket());
      LocalPublisher.requireBucket(request.bucket(), bucketDir);
      return LocalLister.list(bucketDir, request,
          (key, path) -> metadata.current(path, layout.sidecarPath(request.bucket(), key)));
    });
  }

  @Override
  public CompletableFuture<String> createMultipartUpload(
      String bucket, String key, WriteOptions options) {
    return async(() -> multipart.create(bucket, key, options));
  }

  @Override
  public CompletableFuture<String> uploadPart(
      MultipartUpload upload, int partNumber, ObjectBody body) {
    return async(() -> multipart.uploadPart(upload, partNumber, body));
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(
      MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition) {
    return async(() -> multipart.complete(upload, parts, condition));
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    return async(() -> {
      multipart.abort(upload);
      return null;
    });
  }

  @Override
  public CompletableFuture<PartListing> listParts(
      MultipartUpload upload, int partNumberMarker, int maxParts) {
    return async(() -> multipart.listParts(upload, partNumberMarker, maxParts));
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    return async(() -> multipart.listUploads(request));
  }

  /** Files whose ETag and metadata are memoized (read since written). */
  int memoized() {
    return metadata.memoized();
  }

  @Override
  public void close() {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "LocalDirectoryOrigin[" + layout.root + "]";
  }

  private Path existingBucketPath(String bucket, String key) {
    Path file = layout.objectPath(bucket, key);
    LocalPublisher.requireBucket(bucket, layout.bucketDir(bucket));
    return file;
  }

  private static OriginException noSuchKey(String key) {
    return new OriginException(Reason.NO_SUCH_KEY, "The specified key does not exist: " + key);
  }

  private interface IoCall<T> {
    T call() throws IOException;
  }

  private <T> CompletableFuture<T> async(IoCall<T> call) {
    try {
      return CompletableFuture.supplyAsync(() -> {
        try {
          return call.call();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }, executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("Cannot use " + this + ": it is closed", e));
    }
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "verglas-local-origin-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
